#include "harness/p2p/p2p_command.hpp"

#include <map>
#include <optional>
#include <stdexcept>

#include "collectives/process/progress.hpp"
#include "collectives/transport/mpi/mapped_transport.hpp"
#include "collectives/transport/shm_memory.hpp"
#include "harness/common/control.hpp"
#include "harness/common/metadata.hpp"
#include "harness/common/session.hpp"
#include "harness/common/sizes.hpp"
#include "harness/common/stats.hpp"
#include "harness/p2p/p2p_rows.hpp"

namespace collbench {
namespace {

nlohmann::json p2p_metadata(const P2pOptions& o, const std::vector<LinkPair>& pairs,
                            const std::vector<std::string>& hosts) {
  nlohmann::json j;
  std::vector<std::string> tests;
  for (P2pTest t : o.tests) tests.emplace_back(kP2pTestNames.name(t));
  j["options"] = {{"tests", tests},
                  {"min_bytes", o.sizes.min_bytes},
                  {"max_bytes", o.sizes.max_bytes},
                  {"step_factor", o.sizes.step_factor},
                  {"repetitions", repetitions_text(o.reps)},
                  {"rounds", o.reps.rounds},
                  {"window", o.window > 0 ? nlohmann::json(o.window) : nlohmann::json("auto")},
                  {"transport", kTransportKindNames.name(o.transport)},
                  {"check", o.check},
                  {"fit_ranges", o.fit.max_ranges},
                  {"fit_tolerance", o.fit.tolerance}};
  j["pairs"] = nlohmann::json::array();
  for (const LinkPair& p : pairs)
    j["pairs"].push_back(
        {{"link", p.link},
         {"ranks", {p.first, p.second}},
         {"hosts", {hosts[static_cast<std::size_t>(p.first)], hosts[static_cast<std::size_t>(p.second)]}}});
  return j;
}

nlohmann::json p2p_definitions() {
  return {{"latency", "ping-pong: rank 0 sends, its peer sends back; half the round trip per iteration (osu_latency)"},
          {"exchange",
           "both ranks post a receive and a send of the size at once and wait for both (a collective's "
           "step between two ranks); one iteration per message pair"},
          {"written",
           "exchange whose send buffers both ranks have just stored to, untimed (a step sending what the call "
           "reduced or received earlier: modified in the sender's cache); one iteration per message pair"},
          {"busy",
           "an exchange during which each rank, after posting it, sums two f32 arrays of the size into a "
           "third (buffers of their own) and then waits: as long as the exchange and the sum one after "
           "the other where the receiving core does the copy, as the longer of the two where the transfer "
           "proceeds without it (model fit compares it with the exchange test and its own timed sum)"},
          {"bandwidth",
           "rank 0 starts a window of messages to its peer, which answers the window with a 4-byte ack "
           "(osu_bw); an iteration's time / window per message"},
          {"times", "rank 0's, per message, every timed iteration of every round; gbps = bytes / avg_us"},
          {"link",
           "intra-host: rank 0 and the lowest rank on its node; inter-host: rank 0 and the lowest rank on "
           "another node (nodes as the topology metadata, MPI_COMM_TYPE_SHARED); other ranks sleep"},
          {"fit",
           "t(m) = alpha_us + m / beta per size range (Hockney), fitted to each size's p50 by least squares "
           "on relative error; ranges cut where protocols change (fewest ranges within fit_tolerance); "
           "beta empty where the range's times do not grow with size"},
          {"errors",
           "bytes of the checked messages (one each way after every round) that arrived wrong; -1 when "
           "not checked"}};
}

}  // namespace

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

  P2pBuffers buffers(transport, o.sizes.max_bytes);
  const std::vector<std::size_t> sizes = checked_sweep_sizes(o.sizes, 1, true);
  const std::string transport_name(transport.name());
  std::map<std::pair<std::size_t, P2pTest>, std::vector<SizeTime>> p50s;  // by pair index and test
  const std::int64_t wrong = measure_keeping_results(inv, sink, [&] {
    std::int64_t total = 0;
    for (std::size_t bytes : sizes) {
      std::map<std::pair<std::size_t, P2pTest>, P2pMeasured> at;
      for (int round = 0; round < o.reps.rounds; ++round)
        for (std::size_t p = 0; p < pairs.size(); ++p)
          for (P2pTest test : o.tests) {
            P2pMeasured& m = at[{p, test}];
            const bool mine = inv.rank == pairs[p].first || inv.rank == pairs[p].second;
            PairRound r;
            if (mine) {
              progress::set_task("p2p " + std::string(kP2pTestNames.name(test)) + " " + pairs[p].link + ", " +
                                 std::to_string(bytes) + " bytes, round " + std::to_string(round + 1));
              r = run_pair_round(transport, buffers, pairs[p], test, bytes, window_at(o, bytes), o.reps, round,
                                 o.check);
            } else {
              progress::set_task("p2p: waiting while ranks " + std::to_string(pairs[p].first) + " and " +
                                 std::to_string(pairs[p].second) + " measure");
            }
            const std::int64_t bad = control_sum_sleeping(r.wrong, inv.comm);  // the others sleep meanwhile
            total += bad;
            m.wrong = o.check ? m.wrong + bad : -1;
            m.warmup = r.warmup;
            m.us.insert(m.us.end(), r.us.begin(), r.us.end());
            m.round_mean_us.push_back(summarize(r.us).mean);
          }
      for (auto& [key, m] : at) {
        m.test = key.second;
        m.pair = pairs[key.first];
        m.transport = transport_name;
        m.bytes = bytes;
        m.window = key.second == P2pTest::bandwidth ? window_at(o, bytes) : 1;
        m.rounds = o.reps.rounds;
        if (inv.rank == 0) p50s[key].push_back({static_cast<double>(bytes), summarize(m.us).p50});
        sink.add(p2p_measured_row(m));
      }
    }
    for (const auto& [key, points] : p50s) {
      if (points.size() < 2) break;  // one size: nothing to fit (rank 0 alone gets here)
      for (const AlphaBetaRange& r : fit_alpha_beta(points, o.fit).ranges)
        sink.add(p2p_fit_row(key.second, pairs[key.first], transport_name, r));
    }
    return total;
  });
  return finish_run(inv, sink, wrong, "the transport delivered wrong bytes");
}

}  // namespace collbench
