#include "harness/replay/replay_command.hpp"

#include "harness/common/metadata.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/session.hpp"
#include "harness/replay/replay.hpp"
#include "harness/replay/replay_rows.hpp"

namespace collbench {

int run_replay_command(ReplayOptions r, const Invocation& inv) {
  Session session(*inv.registry, inv.comm, r.ranks_per_node);
  nlohmann::json metadata = collect_metadata(inv, session);
  add_replay_metadata(metadata, r);
  std::vector<OtherOutput> others;
  if (!r.timeline_path.empty()) others.push_back(timeline_output(r));
  ResultSink sink = ResultSink::open(r.out, "replay", replay_columns(), metadata, inv.comm, others);
  const std::int64_t wrong = measure_keeping_results(inv, sink, [&] { return run_replay(r, session, sink); });
  return finish_run(inv, sink, wrong);
}

}  // namespace collbench
