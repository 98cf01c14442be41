#include "harness/p2p/p2p_probe.hpp"

#include <algorithm>

#include "collectives/process/progress.hpp"
#include "harness/common/control.hpp"
#include "harness/common/stats.hpp"

namespace collbench {

P2pProbe::P2pProbe(Transport& transport, std::vector<LinkPair> pairs, std::vector<P2pTest> tests, std::size_t max_bytes,
                   TimingPolicy timing, bool check, MPI_Comm comm)
    : transport_(transport),
      pairs_(std::move(pairs)),
      tests_(std::move(tests)),
      buffers_(transport, max_bytes, std::count(tests_.begin(), tests_.end(), P2pTest::pair) ? 2 : 1),
      timing_(timing),
      check_(check),
      comm_(comm),
      transport_name_(transport.name()) {}

std::int64_t P2pProbe::measure_round(std::size_t bytes, int round, const Repetitions& reps, int window) {
  std::int64_t total = 0;
  const int rank = transport_.rank();
  for (std::size_t p = 0; p < pairs_.size(); ++p)
    for (P2pTest test : tests_) {
      P2pMeasured& m = at_[bytes][{p, test}];
      const LinkPair& pair = pairs_[p];
      PairRound r;
      if (rank == pair.first || rank == pair.second) {
        progress::set_task("p2p " + std::string(kP2pTestNames.name(test)) + " " + pair.link + ", " +
                           std::to_string(bytes) + " bytes, round " + std::to_string(round + 1));
        r = run_pair_round(transport_, buffers_, pair, test, bytes, window, reps, timing_, round, check_);
      } else {
        progress::set_task("p2p: waiting while ranks " + std::to_string(pair.first) + " and " +
                           std::to_string(pair.second) + " measure");
      }
      const std::int64_t bad = control_sum_sleeping(r.wrong, comm_);  // the others sleep meanwhile
      total += bad;
      m.wrong = check_ ? m.wrong + bad : -1;
      m.warmup = r.warmup;
      m.us.insert(m.us.end(), r.us.begin(), r.us.end());
      m.round_mean_us.push_back(summarize(r.us).mean);
    }
  return total;
}

std::vector<Row> P2pProbe::measured_rows(std::size_t bytes, int window) {
  std::vector<Row> rows;
  for (auto& [key, m] : at_[bytes]) {
    m.test = key.second;
    m.pair = pairs_[key.first];
    m.transport = transport_name_;
    m.bytes = bytes;
    m.window = key.second == P2pTest::bandwidth ? window : 1;
    m.rounds = static_cast<int>(m.round_mean_us.size());
    if (transport_.rank() == 0) p50s_[key].push_back({static_cast<double>(bytes), summarize(m.us).p50});
    rows.push_back(p2p_measured_row(m));
  }
  return rows;
}

std::vector<Row> P2pProbe::fit_rows(const FitSettings& fit) const {
  std::vector<Row> rows;
  for (const auto& [key, points] : p50s_) {
    if (points.size() < 2) continue;  // one size: nothing to fit
    for (const AlphaBetaRange& r : fit_alpha_beta(points, fit).ranges)
      rows.push_back(p2p_fit_row(key.second, pairs_[key.first], transport_name_, r));
  }
  return rows;
}

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
                  {"timing", kTimingPolicyNames.name(o.timing)},
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
           "exchange whose send buffers both ranks have just rewritten, untimed, with the collectives' reduction "
           "kernel (i32 sum in place: a step sending what the call reduced or received earlier, stored as the "
           "kernel stores); one iteration per message pair"},
          {"rewrite",
           "after an untimed exchange, both ranks sum two f32 arrays of the size (buffers of their own) into "
           "the send buffer the peer has just received from: a collective's reduction storing into bytes the "
           "rank sent (shared memory's receiver read them from the sender's memory, so every line is taken "
           "back from the reader's cache first); the sum's time per iteration (model fit keeps it where it "
           "keeps the written cost)"},
          {"busy",
           "an exchange during which each rank, after posting it, sums two f32 arrays of the size into a "
           "third (buffers of their own) and then waits: as long as the exchange and the sum one after "
           "the other where the receiving core does the copy, as the longer of the two where the transfer "
           "proceeds without it (model fit compares it with the exchange test and its own timed sum)"},
          {"pair",
           "rank 0 posts two receives of the size and tells its peer (4 bytes), which then sends both at once: "
           "the time until the first arrives. About one message's time where a pair's messages go one after "
           "another (shared memory), about both's where the transport interleaves them (UCX over TCP); model "
           "fit compares it with the ping-pong of twice the size"},
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

}  // namespace collbench
