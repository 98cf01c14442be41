#include "harness/replay/replay_command.hpp"

#include "harness/common/control.hpp"
#include "harness/common/metadata.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/session.hpp"
#include "harness/common/transports.hpp"
#include "harness/replay/replay.hpp"
#include "harness/replay/replay_rows.hpp"

namespace collbench {

int run_command(ReplayOptions r, const Invocation& inv) {
  Session session(*inv.registry, inv.comm, r.ranks_per_node);
  const OpenTransport opened = open_transport(r.transport, session.transport, inv);
  nlohmann::json metadata = collect_metadata(inv, session);
  add_replay_metadata(metadata, r);
  metadata["memory"] = kMemoryKindNames.name(r.memory);
  if (opened.owned) metadata["transport"] = opened.owned->name();
  if (opened.space) metadata["memory_of_rank"] = control_allgather(std::string(opened.space->name()), inv.comm);
  std::vector<OtherOutput> others;
  if (!r.timeline_path.empty()) others.push_back(timeline_output(r));
  ResultSink sink = ResultSink::open(r.out, "replay", replay_columns(), metadata, inv.comm, others);
  const std::int64_t wrong =
      measure_keeping_results(inv, sink, [&] { return run_replay(r, session, sink, opened.owned.get()); });
  return finish_run(inv, sink, wrong);
}

}  // namespace collbench
