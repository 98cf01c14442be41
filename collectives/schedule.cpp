#include "collectives/schedule.hpp"

#include <algorithm>
#include <sstream>

namespace collbench {

std::size_t ScheduleRequest::segment_elements(std::size_t default_bytes) const {
  const std::size_t bytes = params && params->segment_bytes ? params->segment_bytes : default_bytes;
  return std::max<std::size_t>(1, bytes / std::max<std::size_t>(1, element_size));
}

int ScheduleRequest::node_of(int r) const {
  return params && !params->node_of_rank.empty() ? params->node_of_rank.at(static_cast<std::size_t>(r)) : 0;
}

LocalOp copy_op(Region dst, Region src) { return {LocalOp::Kind::copy, dst, src, {}}; }
LocalOp reduce_op(Region dst, Region a, Region b) { return {LocalOp::Kind::reduce, dst, a, b}; }

namespace {
const char* buffer_name(BufferId b) {
  switch (b) {
    case BufferId::send: return "send";
    case BufferId::recv: return "recv";
    case BufferId::scratch: return "scratch";
  }
  return "?";
}
std::ostream& operator<<(std::ostream& os, const Region& r) {
  return os << buffer_name(r.buffer) << "[" << r.offset << "+" << r.count << "]";
}
}  // namespace

std::string describe(const Schedule& s) {
  std::ostringstream os;
  os << "scratch " << s.scratch_count << " elements, " << s.steps.size() << " steps\n";
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    for (const auto& t : st.sends) os << "step " << i << ": send " << t.region << " -> " << t.peer << "\n";
    for (const auto& t : st.recvs) os << "step " << i << ": recv " << t.region << " <- " << t.peer << "\n";
    for (const auto& op : st.ops) {
      if (op.kind == LocalOp::Kind::copy) os << "step " << i << ": " << op.dst << " = " << op.a << "\n";
      else os << "step " << i << ": " << op.dst << " = " << op.a << " op " << op.b << "\n";
    }
  }
  return os.str();
}

}  // namespace collbench
