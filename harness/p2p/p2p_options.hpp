#pragma once
// `collbench p2p`: what a user runs first on a new cluster. Ping-pong latency and
// streaming bandwidth (osu_latency and osu_bw style) between one pair of ranks per link
// class (two ranks on one host, two on different hosts), a size sweep like `run`'s,
// and Hockney's alpha and beta fitted per size range (alpha_beta.hpp).
#include <cstddef>
#include <string>
#include <vector>

#include "collectives/cost_model/alpha_beta.hpp"
#include "harness/common/command_context.hpp"
#include "harness/common/numeric_flags.hpp"
#include "harness/common/request_limits.hpp"
#include "harness/common/result_sink.hpp"
#include "harness/common/sizes.hpp"
#include "harness/common/timing.hpp"
#include "harness/common/transports.hpp"
#include "harness/common/watchdog.hpp"

namespace CLI {
class App;
}

namespace collbench {

enum class P2pTest { latency, bandwidth, exchange, written, busy, pair, rewrite };
inline constexpr NameTable<P2pTest, 7> kP2pTestNames{{{{P2pTest::latency, "latency"},
                                                       {P2pTest::bandwidth, "bandwidth"},
                                                       {P2pTest::exchange, "exchange"},
                                                       {P2pTest::written, "written"},
                                                       {P2pTest::busy, "busy"},
                                                       {P2pTest::pair, "pair"},
                                                       {P2pTest::rewrite, "rewrite"}}}};

struct P2pOptions {
  std::vector<P2pTest> tests{P2pTest::latency, P2pTest::bandwidth, P2pTest::exchange};
  SizeRange sizes{1, std::size_t{4} << 20, 2};  // OSU's point-to-point default
  Repetitions reps;
  int window = 0;  // bandwidth: messages in flight per iteration; 0: auto (window_at)
  // loop: iterations back to back (osu_latency, osu_bw); per-call: the pair meets before
  // each timed one, as run's calls follow a barrier (a shaped link's bucket refills).
  TimingPolicy timing = TimingPolicy::loop;
  TransportKind transport = TransportKind::mpi;
  bool check = true;
  FitSettings fit;
  OutputOptions out;
  WatchdogLimits watchdog;
  bool force = false;
};

// Auto window: 64 messages in flight as osu_bw, fewer for large messages so one
// iteration stays near 16 MiB (a second is then enough for a slow link's sweep).
int window_at(const P2pOptions& o, std::size_t bytes);

struct P2pFlags {
  std::string tests = "latency,bandwidth,exchange", min_bytes = "1", max_bytes = "4M", warmup = "auto", iters = "auto",
              window = "auto", timing = "loop";
  TransportFlags transport;
  P2pOptions parsed;
};
CLI::App* add_command(CLI::App& app, P2pFlags& f);
// Throws std::invalid_argument on bad input, and on an absurd request (unless --force).
P2pOptions resolve_command(const P2pFlags& f, const CommandContext& c);

}  // namespace collbench
