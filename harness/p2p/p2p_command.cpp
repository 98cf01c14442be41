#include "harness/p2p/p2p_command.hpp"

#include "collectives/transport/mpi/mapped_transport.hpp"
#include "collectives/transport/shm_memory.hpp"
#include "harness/common/control.hpp"
#include "harness/common/metadata.hpp"
#include "harness/common/session.hpp"
#include "harness/common/sizes.hpp"
#include "harness/p2p/p2p_probe.hpp"
#include "harness/p2p/p2p_rows.hpp"

namespace collbench {

int run_command(const P2pOptions& o, const Invocation& inv) {
  Session session(*inv.registry, inv.comm, 0);
  const OpenTransport opened = open_transport(o.transport, session.transport, inv);
  Transport& transport = *opened.transport;
  const std::vector<LinkPair> pairs = choose_pairs(session.topology.node_of_rank);
  nlohmann::json metadata = collect_metadata(inv, session);
  metadata["transport"] = transport.name();
  metadata["p2p"] = p2p_metadata(o, pairs, rank_hosts(inv.comm));
  metadata["definitions"] = p2p_definitions();
  OutputOptions out = o.out;
  ResultSink sink = ResultSink::open(out, "p2p", p2p_columns(), metadata, inv.comm);
  if (inv.rank == 0) print_p2p_header(metadata);

  P2pProbe probe(transport, pairs, o.tests, o.sizes.max_bytes, o.timing, o.check, inv.comm);
  const std::int64_t wrong = measure_keeping_results(inv, sink, [&] {
    std::int64_t total = 0;
    for (std::size_t bytes : checked_sweep_sizes(o.sizes, 1, true)) {
      for (int round = 0; round < o.reps.rounds; ++round)
        total += probe.measure_round(bytes, round, o.reps, window_at(o, bytes));
      for (const Row& row : probe.measured_rows(bytes, window_at(o, bytes))) sink.add(row);
    }
    for (const Row& row : probe.fit_rows(o.fit)) sink.add(row);
    return total;
  });
  return finish_run(inv, sink, wrong, "the transport delivered wrong bytes");
}

}  // namespace collbench
