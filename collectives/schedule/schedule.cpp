#include "collectives/schedule/schedule.hpp"

#include <algorithm>
#include <sstream>

#include "collectives/names.hpp"

namespace collbench {

std::size_t ScheduleRequest::segment_elements(std::size_t default_bytes) const {
  const std::size_t bytes = params && params->segment_bytes ? params->segment_bytes : default_bytes;
  return std::max<std::size_t>(1, bytes / std::max<std::size_t>(1, element_size));
}

int ScheduleRequest::node_of(int r) const {
  return params && !params->node_of_rank.empty() ? params->node_of_rank.at(static_cast<std::size_t>(r)) : 0;
}

Region in_memory(const Region& r, const BufferLayout& layout) {
  if (r.buffer != BufferId::send || !layout.send_aliases_recv) return r;
  return {BufferId::recv, r.offset + layout.send_offset_in_recv, r.count};
}

LocalOp copy_op(Region dst, Region src) { return {LocalOp::Kind::copy, dst, src, {}}; }
LocalOp reduce_op(Region dst, Region a, Region b) { return {LocalOp::Kind::reduce, dst, a, b}; }

namespace {
constexpr NameTable<BufferId, 3> kBufferNames{
    {{{BufferId::send, "send"}, {BufferId::recv, "recv"}, {BufferId::scratch, "scratch"}}}};
std::ostream& operator<<(std::ostream& os, const Region& r) {
  return os << kBufferNames.name(r.buffer) << "[" << r.offset << "+" << r.count << "]";
}
}  // namespace

std::string_view buffer_name(BufferId b) { return kBufferNames.name(b); }

Schedule split_large_transfers(const Schedule& s, std::size_t max_count) {
  max_count = std::max<std::size_t>(max_count, 1);
  Schedule out = s;
  for (Step& st : out.steps)
    for (std::vector<Transfer>* list : {&st.sends, &st.recvs}) {
      std::vector<Transfer> cut;
      for (const Transfer& t : *list) {
        std::size_t done = 0;
        do {
          Transfer piece = t;
          piece.region.offset += done;
          piece.region.count = std::min(max_count, t.region.count - done);
          cut.push_back(piece);
          done += piece.region.count;
        } while (done < t.region.count);
      }
      *list = std::move(cut);
    }
  return out;
}

std::string describe(const Schedule& s, std::size_t elem) {
  std::ostringstream os;
  os << "scratch " << s.scratch_count << " elements, " << s.steps.size() << " steps of " << s.span() << "\n";
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    const std::size_t n = s.number(i);
    for (const auto& t : st.sends)
      os << "step " << n << ": send " << t.region << " -> " << t.peer << " (" << t.region.count * elem << " B)\n";
    for (const auto& t : st.recvs)
      os << "step " << n << ": recv " << t.region << " <- " << t.peer << " (" << t.region.count * elem << " B)\n";
    for (const auto& op : st.ops) {
      os << "step " << n << ": " << op.dst << " = " << op.a;
      if (op.kind == LocalOp::Kind::reduce)
        os << " op " << op.b << " (reduce, " << op.dst.count * elem << " B)\n";
      else
        os << " (copy, " << op.dst.count * elem << " B)\n";
    }
  }
  return os.str();
}

ScheduleStats schedule_stats(const Schedule& s) {
  ScheduleStats st;
  for (const Step& step : s.steps) {
    if (step.sends.empty() && step.recvs.empty() && step.ops.empty()) continue;
    ++st.steps;
    st.messages_sent += step.sends.size();
    st.messages_received += step.recvs.size();
    for (const Transfer& t : step.sends) st.elements_sent += t.region.count;
    for (const Transfer& t : step.recvs) st.elements_received += t.region.count;
    for (const LocalOp& op : step.ops)
      (op.kind == LocalOp::Kind::reduce ? st.elements_reduced : st.elements_copied) += op.dst.count;
  }
  return st;
}

}  // namespace collbench
