// collbench: the benchmark program. Every rank parses the same command line; rank 0
// alone speaks, and every error ends all ranks with a non-zero exit, never a hang.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <variant>

#include "collectives/mpi/communicator.hpp"
#include "harness/command_line.hpp"
#include "harness/common/control.hpp"
#include "harness/common/default_registry.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/watchdog.hpp"
#include "harness/ps/ps_command.hpp"
#include "harness/replay/replay_command.hpp"
#include "harness/run/run_command.hpp"

using namespace collbench;

namespace {

std::uint64_t hash_arguments(int argc, const char* const* argv) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a; argv[0] may differ between nodes
  for (int i = 1; i < argc; ++i)
    for (const char* p = argv[i];; ++p) {
      h = (h ^ static_cast<unsigned char>(*p)) * 1099511628211ULL;
      if (!*p) break;
    }
  return h;
}

bool arguments_agree(int argc, const char* const* argv, MPI_Comm comm) {
  const auto h = static_cast<long long>(hash_arguments(argc, argv));
  std::vector<long long> v{h, ~h};
  control_allreduce(v, [](long long a, long long b) { return std::max(a, b); }, comm);
  return v[0] == ~v[1];  // max equals min
}

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};

// The commands that measure guard against stalled ranks; the others end quickly.
double watchdog_seconds(const Command& cmd) {
  return std::visit(
      [](const auto& o) -> double {
        if constexpr (requires { o.watchdog_s; }) return o.watchdog_s;
        else return 0;
      },
      cmd);
}

int run_command(const Invocation& inv) {
  Command cmd = parse_command_line(inv.argc, inv.argv, *inv.registry, inv.size);
  // Bad input is known to every rank alike once all ranks got the same arguments.
  if (!arguments_agree(inv.argc, inv.argv, inv.comm))
    throw RunError("ranks were launched with different arguments; every rank must get the same command line");
  const Watchdog watchdog(watchdog_seconds(cmd), inv.rank);
  return std::visit(Overloaded{
                        [](const CommandError& e) -> int { throw RunError(e.text); },
                        [&](const HelpText& h) {
                          if (inv.rank == 0) std::printf("%s", h.text.c_str());
                          return 0;
                        },
                        [&](const ListOptions& o) { return run_list(o, inv); },
                        [&](const RunOptions& o) { return run_run(o, inv); },
                        [&](const PsOptions& o) { return run_ps(o, inv); },
                        [&](const ReplayOptions& o) { return run_replay_command(o, inv); },
                        [&](const WorkloadsOptions& o) { return run_workloads(o, inv); },
                        [&](const ScheduleOptions& o) { return run_schedule(o, inv); },
                    },
                    cmd);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  {
    const Communicator comm = Communicator::duplicate(MPI_COMM_WORLD);
    Invocation inv{argc, argv, comm.get(), &default_registry()};
    MPI_Comm_rank(comm.get(), &inv.rank);
    MPI_Comm_size(comm.get(), &inv.size);
    try {
      rc = run_command(inv);
    } catch (const RunError& e) {  // every rank threw it: bad input, or an error all ranks learned of
      if (inv.rank == 0) std::fprintf(stderr, "collbench: error: %s\n", e.what());
      rc = 2;
    } catch (const std::exception& e) {
      // Past argument checking, ranks may be inside a collective: abort all of them.
      std::fprintf(stderr, "collbench: error on rank %d: %s\n", inv.rank, e.what());
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  MPI_Finalize();
  return rc;
}
