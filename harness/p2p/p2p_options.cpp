#include "harness/p2p/p2p_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <stdexcept>

#include "harness/common/lists.hpp"
#include "harness/common/numeric_flags.hpp"
#include "harness/common/sizes.hpp"

namespace collbench {

int window_at(const P2pOptions& o, std::size_t bytes) {
  if (o.window > 0) return o.window;
  constexpr std::size_t kIterationBytes = std::size_t{16} << 20;
  return static_cast<int>(std::clamp<std::size_t>(kIterationBytes / std::max<std::size_t>(bytes, 1), 2, 64));
}

CLI::App* add_command(CLI::App& app, P2pFlags& f) {
  P2pOptions& o = f.parsed;
  CLI::App* p = app.add_subcommand("p2p",
                                   "Point-to-point latency and bandwidth per link class (same host, other "
                                   "host), with alpha and beta fitted per size range");
  p->add_option(
       "--tests,-t", f.tests,
       "Comma-separated: latency (ping-pong, half the round trip, as osu_latency), "
       "bandwidth (a window of messages in flight, then an ack, as osu_bw), exchange (both ranks send "
       "and receive one message at once, as a collective's step does), written (exchange of send buffers each rank "
       "has just written, untimed: a step sending what it reduced or received earlier in the call), busy (an "
       "exchange during which each rank reduces as many bytes of f32 elsewhere: whether receiving "
       "holds the core), pair (the peer sends two messages at once: when the first arrives, whether a pair's "
       "messages go in turn or share the link), rewrite (after an untimed exchange, each rank sums f32 arrays "
       "of its own into the bytes it just sent: what storing over lines the peer read costs)")
      ->capture_default_str();
  p->add_option("-b,--minbytes", f.min_bytes, "Smallest message in bytes (K/M/G suffixes)")->capture_default_str();
  p->add_option("-e,--maxbytes", f.max_bytes, "Largest message in bytes (K/M/G suffixes)")->capture_default_str();
  p->add_option("-f,--stepfactor", o.sizes.step_factor, "Multiply the size by this between steps")
      ->check(number_in(1, 1e6))
      ->capture_default_str();
  p->add_option("-w,--warmup", f.warmup, "Untimed iterations per test, link and size and round, or auto (as run)")
      ->capture_default_str();
  p->add_option("-n,--iters", f.iters,
                "Timed iterations per test, link, size and round, or auto (as run: 1000 up "
                "to 8 KiB, 100 above, within --time-budget)")
      ->capture_default_str();
  p->add_option("--time-budget", o.reps.budget_s,
                "With -n auto: seconds of timed iterations per test, link and "
                "size (all rounds), at least --min-iters per round; 0: no limit")
      ->check(number_in(0, 86400))
      ->capture_default_str();
  p->add_option("--min-iters", o.reps.min_iters, "With -n auto: the fewest timed iterations per round (as run)")
      ->check(whole_in(1, 1000))
      ->capture_default_str();
  p->add_option("--rounds", o.reps.rounds, "Rounds per size; each round runs every test and link in turn")
      ->check(whole_in(1, kMaxRepeats))
      ->capture_default_str();
  p->add_option("--window", f.window,
                "Bandwidth test: messages in flight per iteration, or auto (64 as osu_bw, "
                "fewer above 256 KiB so an iteration moves about 16 MiB)")
      ->capture_default_str();
  p->add_option("--timing", f.timing,
                "loop (iterations back to back, as osu_latency and osu_bw) or per-call (the pair exchanges 4 bytes, "
                "untimed, before each timed iteration, as run --timing per-call puts a barrier before each call)")
      ->capture_default_str();
  add_transport_flag(*p, f.transport, TransportUser::p2p);
  p->add_flag("--check,!--no-check", o.check, "Check the bytes of the last message of every round (default on)");
  p->add_option("--fit-ranges", o.fit.max_ranges, "At most this many size ranges with their own alpha and beta")
      ->check(whole_in(1, 16))
      ->capture_default_str();
  p->add_option("--fit-tolerance", o.fit.tolerance, "Add ranges until the fit's RMS relative error is within this")
      ->check(number_in(0, 10))
      ->capture_default_str();
  add_output_flags(*p, o.out, "p2p");
  add_watchdog_flags(*p, o.watchdog);
  add_force_flag(*p, o.force);
  return p;
}

P2pOptions resolve_command(const P2pFlags& f, const CommandContext& c) {
  const int nranks = c.nranks;
  const Machine& machine = c.machine;
  P2pOptions o = f.parsed;
  o.tests = resolve_list<P2pTest>(
      f.tests, [](const std::string& t) { return kP2pTestNames.parse(t); },
      [](const std::string& t) { return "unknown p2p test '" + t + "'; valid: " + kP2pTestNames.valid(); },
      "--tests names no test");
  o.transport = resolve_transport(f.transport, MemoryKind::host, TransportUser::p2p, [] { return GpuInventory{}; });
  o.reps.warmup = parse_count_or_auto(f.warmup, "--warmup", 0);
  o.reps.iters = parse_count_or_auto(f.iters, "--iters", 1);
  o.timing = kTimingPolicyNames.parse_or_throw(f.timing, "timing policy");
  o.window = f.window == "auto" ? 0 : parse_count_or_auto(f.window, "--window", 1);
  if (o.window > 4096)
    throw std::invalid_argument("--window must be auto or a whole number from 1 to 4096, not '" + f.window + "'");
  parse_size_range(o.sizes, f.min_bytes, f.max_bytes);
  if (nranks < 2) throw std::invalid_argument("p2p needs at least 2 ranks (one pair per link class)");
  const std::vector<std::size_t> sizes = checked_sweep_sizes(o.sizes, 1, o.force);
  // Lower bound: every iteration of both tests, for the two link classes there may be.
  RequestEstimate e;
  long double iterations = 0;
  int most_window = 1;
  for (std::size_t bytes : sizes) {
    const long double per_test = (o.reps.warmup_at(bytes) + o.reps.iters_at(bytes, call_floor_seconds(bytes))) *
                                 static_cast<long double>(o.reps.rounds);
    iterations += per_test * 2 * static_cast<long double>(o.tests.size());
    e.seconds += per_test * 2 * call_floor_seconds(static_cast<long double>(bytes) * window_at(o, bytes));
    most_window = std::max(most_window, window_at(o, bytes));
  }
  e.bytes_per_rank = 2.0L * (sizes.empty() ? 0 : sizes.back()) +
                     16.0L * std::max(o.reps.iters_at(0, 0), o.reps.iters_at(sizes.back(), 0)) * o.reps.rounds;
  e.memory_flag = "-e " + format_bytes(o.sizes.max_bytes);
  e.work = std::to_string(o.tests.size()) + " test(s) x " + std::to_string(sizes.size()) +
           " size(s) x up to 2 links, " + std::to_string(static_cast<long long>(iterations)) +
           " iterations, windows up to " + std::to_string(most_window) + " messages";
  check_request(e, machine, o.force);
  return o;
}

}  // namespace collbench
