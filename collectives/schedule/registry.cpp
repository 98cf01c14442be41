#include "collectives/schedule/registry.hpp"

#include <stdexcept>

#include "collectives/schedule/receive_fusion.hpp"
#include "collectives/schedule/schedule_executor.hpp"
#include "collectives/transport/memory_space.hpp"

namespace collbench {

std::byte* Workspace::reserve(std::size_t bytes, Transport& from) {
  if (bytes > storage_.size() || !storage_.data()) storage_ = from.allocate(bytes);
  return storage_.data();
}

std::size_t AlgorithmEntry::segment_bytes(const AlgorithmParams& params) const {
  if (!pipelined()) return 0;
  return params.segment_bytes ? params.segment_bytes : default_segment_bytes;
}

void Registry::add(AlgorithmEntry entry) {
  if (find(entry.collective, entry.name))
    throw std::logic_error("algorithm registered twice: " + std::string(collective_name(entry.collective)) + "/" +
                           entry.name);
  entries_.push_back(std::move(entry));
}

const AlgorithmEntry* Registry::find(Collective c, const std::string& name) const {
  for (const auto& e : entries_)
    if (e.collective == c && e.name == name) return &e;
  return nullptr;
}

std::vector<const AlgorithmEntry*> Registry::for_collective(Collective c) const {
  std::vector<const AlgorithmEntry*> out;
  for (const auto& e : entries_)
    if (e.collective == c) out.push_back(&e);
  return out;
}

std::string Registry::names(Collective c) const {
  return join(for_collective(c), [](const AlgorithmEntry* e) { return e->name; });
}

std::string Registry::host_names(Collective c) const {
  std::vector<const AlgorithmEntry*> host;
  for (const AlgorithmEntry* e : for_collective(c))
    if (e->runs_on_host()) host.push_back(e);
  return join(host, [](const AlgorithmEntry* e) { return e->name; });
}

const AlgorithmEntry* Registry::find_on_host(Collective c, const std::string& name) const {
  const AlgorithmEntry* e = find(c, name);
  return e && e->runs_on_host() ? e : nullptr;
}

void Registry::add_protocol(ProtocolEntry entry) {
  for (const auto& p : protocols_)
    if (p.name == entry.name) throw std::logic_error("protocol registered twice: " + entry.name);
  protocols_.push_back(std::move(entry));
}

const ProtocolEntry* Registry::find_protocol(const std::string& family, const std::string& variant) const {
  for (const auto& p : protocols_)
    if (p.family == family && p.variant == variant) return &p;
  return nullptr;
}

std::vector<const ProtocolEntry*> Registry::protocols() const {
  std::vector<const ProtocolEntry*> out;
  for (const auto& p : protocols_) out.push_back(&p);
  return out;
}

std::string Registry::variant_names(const std::string& family) const {
  std::vector<std::string> variants;
  for (const ProtocolEntry& p : protocols_)
    if (p.family == family) variants.push_back(p.variant);
  return join(variants, [](const std::string& v) { return v; });
}

namespace {
class ScheduledCollective final : public PreparedCollective {
 public:
  ScheduledCollective(BoundSchedule bound, Transport& t) : bound_(std::move(bound)), transport_(t) {}
  void run() override { bound_.run(transport_); }

 private:
  BoundSchedule bound_;
  Transport& transport_;
};
}  // namespace

namespace {
// The schedule `entry` runs for rank `rank` of `nranks` on `call`, and that rank's buffer layout.
std::pair<Schedule, BufferLayout> schedule_for(const AlgorithmEntry& entry, const CollectiveCall& call, int nranks,
                                               int rank, const AlgorithmParams& params) {
  AlgorithmParams resolved = params;
  resolved.segment_bytes = entry.segment_bytes(params);
  const ScheduleRequest req{call.collective,        nranks,    rank,           call.count,       call.root,
                            dtype_size(call.dtype), &resolved, call.in_place, call.counts.get()};
  return {entry.build(req),
          buffer_layout(call.collective, call.count, nranks, rank, call.root, call.in_place, call.counts.get())};
}
}  // namespace

std::vector<MemoryWork> memory_work_of_ranks(const AlgorithmEntry& entry, const CollectiveCall& call, int nranks,
                                             const AlgorithmParams& params, bool fuse) {
  std::vector<FusedSchedule> ranks;
  for (int rank = 0; rank < nranks; ++rank) {
    const auto [s, layout] = schedule_for(entry, call, nranks, rank, params);
    FusedSchedule& f = ranks.emplace_back();
    if (fuse) {
      f = fuse_receives(s, layout);
    } else {
      f.schedule = s;
      for (const Step& st : s.steps) f.receives.resize(f.receives.size() + st.recvs.size());
    }
  }
  return memory_work_of_ranks(ranks, dtype_size(call.dtype));
}

std::unique_ptr<PreparedCollective> prepare(const AlgorithmEntry& entry, const CollectiveCall& call,
                                            Transport& transport, Workspace& workspace, const AlgorithmParams& params) {
  if (entry.is_baseline()) return entry.prepare_library(call, transport);
  const auto [s, layout] = schedule_for(entry, call, transport.size(), transport.rank(), params);
  const std::size_t scratch_bytes = s.scratch_count * dtype_size(call.dtype);
  std::byte* scratch = workspace.reserve(scratch_bytes, transport);
  MemorySpace* space = transport.memory().kind() == MemoryKind::host ? nullptr : &transport.memory();
  return std::make_unique<ScheduledCollective>(
      BoundSchedule(s, call, layout, scratch, scratch_bytes, params.order, space, transport.reduces_on_receive()),
      transport);
}

}  // namespace collbench
