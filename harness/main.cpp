// collbench: the benchmark program. Every rank parses the same command line; rank 0
// alone speaks, and every error ends all ranks with a non-zero exit, never a hang.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <variant>

#include "collectives/kernels/reduce_kernels.hpp"
#include "collectives/process/fnv1a.hpp"
#include "collectives/process/progress.hpp"
#include "collectives/transport/mpi/clean_finalize.hpp"
#include "collectives/transport/mpi/communicator.hpp"
#include "collectives/transport/mpi/forced_algorithm.hpp"
#include "collectives/transport/shm_memory.hpp"
#include "harness/command_line.hpp"
#include "harness/common/control.hpp"
#include "harness/common/default_registry.hpp"
#include "harness/common/exit_status.hpp"
#include "harness/common/interrupt.hpp"
#include "harness/common/launcher.hpp"
#include "harness/common/mpi_errors.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/topology.hpp"
#include "harness/common/watchdog.hpp"
#include "harness/common/writers.hpp"
#include "harness/tune/tune_command.hpp"
#include "workloads/input_files.hpp"

using namespace collbench;

namespace {

std::uint64_t hash_arguments(int argc, const char* const* argv) {
  std::uint64_t h = kFnv1aBasis;  // argv[0] may differ between nodes
  for (int i = 1; i < argc; ++i) h = fnv1a(std::string_view(argv[i], std::char_traits<char>::length(argv[i]) + 1), h);
  return h;
}

// What every rank must agree on before anything runs, checked in this order: the
// command line, the input files' contents, and the outcome of parsing (a rank whose
// node lacks the memory refuses alone). Throws RunError on every rank alike.
void require_agreement(const Invocation& inv, const Command& cmd) {
  const auto* error = std::get_if<CommandError>(&cmd);
  // A tuning file the library ignores or would misread refuses the run; ranks that read
  // different files (hosts with different copies) too.
  const TuningFileRequest& tuning = mpi_tuning_file_request();
  const nlohmann::json mine = {{"args", std::to_string(hash_arguments(inv.argc, inv.argv))},
                               {"inputs", input_files_summary()},
                               {"tuning", tuning.path + " " + tuning.fnv1a},
                               {"error", error ? error->text : tuning_file_refusal()}};
  std::vector<nlohmann::json> all;
  for (const std::string& text : control_allgather(json_text(mine), inv.comm))
    all.push_back(nlohmann::json::parse(text));
  for (std::size_t r = 1; r < all.size(); ++r)
    if (all[r]["args"] != all[0]["args"])
      throw RunError("ranks were launched with different arguments (rank 0 and rank " + std::to_string(r) +
                     " differ); every rank must get the same command line");
  for (std::size_t r = 1; r < all.size(); ++r)
    if (all[r]["tuning"] != all[0]["tuning"])
      throw RunError("ranks read different tuning files (rank 0: " + all[0]["tuning"].get<std::string>() + ", rank " +
                     std::to_string(r) + ": " + all[r]["tuning"].get<std::string>() + ")");
  std::vector<std::string> inputs;
  for (const nlohmann::json& j : all) inputs.push_back(j["inputs"].get<std::string>());
  if (const std::string differ = input_files_disagreement(inputs); !differ.empty()) throw RunError(differ);
  for (std::size_t r = 0; r < all.size(); ++r)
    if (const std::string e = all[r]["error"].get<std::string>(); !e.empty())
      throw RunError(r == 0 ? e : "on rank " + std::to_string(r) + ": " + e);  // the first rank that refused
}

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
// C++20 deduces this on its own; clang 16 (the fuzz and sanitizer builds) needs the guide.
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

// The commands that measure guard against stalled ranks; the others end quickly.
WatchdogLimits watchdog_limits(const Command& cmd) {
  return std::visit(
      [](const auto& o) -> WatchdogLimits {
        if constexpr (requires { o.watchdog; })
          return o.watchdog;
        else
          return {0, 0};
      },
      cmd);
}

int dispatch(const Invocation& inv) {
  // Ranks per node by host name through control traffic (topology.hpp): MPI_Comm_split_type
  // runs the library's own small collectives, which a forced algorithm may refuse.
  const auto hosts = rank_hosts(inv.comm);
  if (const std::string clash = host_name_conflict(hosts, control_allgather(host_identity_here(), inv.comm));
      !clash.empty())
    throw RunError(clash);
  const int on_this_node =
      static_cast<int>(std::count(hosts.begin(), hosts.end(), hosts[static_cast<std::size_t>(inv.rank)]));
  const Command cmd = parse_command_line(inv.argc, inv.argv, *inv.registry, inv.size, this_machine(on_this_node));
  // Watched from here: a rank that stops before its first call is named by the ranks
  // that wait for it, first in this exchange.
  const Watchdog watchdog(watchdog_limits(cmd), inv.rank, hosts);
  progress::set_startup("checking that the ranks agree");
  require_agreement(inv, cmd);
  return std::visit(Overloaded{
                        [](const CommandError& e) -> int { throw RunError(e.text); },
                        [&](const HelpText& h) {
                          if (inv.rank == 0) std::printf("%s", h.text.c_str());
                          return 0;
                        },
                        [&](const auto& o) { return run_command(o, inv); },
                    },
                    cmd);
}

}  // namespace

int main(int argc, char** argv) {
  // MPICH reads a tuning file inside MPI_Init and asserts or aborts there on a bad one:
  // refused before, with one message (from the first rank, by the launcher's numbering).
  if (const std::string why = mpich_tuning_file_refusal_before_init(); !why.empty()) {
    const char* rank = std::getenv("PMI_RANK");
    if (!rank || std::string(rank) == "0") std::fprintf(stderr, "collbench: error: %s\n", why.c_str());
    return kExitRefused;
  }
  MPI_Init(&argc, &argv);
  end_run_on_mpi_errors();
  int rc = 0;
  // A bad COLLBENCH_FINALIZE_QUIET_MS or _CONNECT is refused before anything runs; MPI then ends as the library needs.
  FinalizePolicy finalize = finalize_policy(mpi_library(), nullptr);
  std::string finalize_error;
  try {
    finalize = finalize_policy_here();
  } catch (const std::invalid_argument& e) {
    finalize_error = e.what();
  }
  // A COLLBENCH_KERNEL_ISA this CPU cannot run is refused before anything runs too.
  std::string kernel_error;
  try {
    reduce_kernel_path();
  } catch (const std::invalid_argument& e) {
    kernel_error = e.what();
  }
  {
    const Communicator comm = Communicator::duplicate(MPI_COMM_WORLD);
    Invocation inv{argc, argv, comm.get(), &default_registry()};
    MPI_Comm_rank(comm.get(), &inv.rank);
    MPI_Comm_size(comm.get(), &inv.size);
    const InterruptHandler interrupts(inv.rank);
    try {
      if (!finalize_error.empty()) throw RunError(finalize_error);
      // Hosts may differ in CPU: every rank refuses if any rank's CPU lacks the path.
      for (const std::string& e : control_allgather(kernel_error, inv.comm))
        if (!e.empty()) throw RunError(e);
      if (const auto why = launch_mismatch(detect_launcher(), inv.size)) {
        // Every task is a rank 0 of its own: the first task alone says so.
        const char* task = std::getenv("SLURM_PROCID");
        if (!task || std::string(task) == "0") std::fprintf(stderr, "collbench: error: %s\n", why->c_str());
        rc = kExitRefused;
      } else {
        rc = dispatch(inv);
      }
    } catch (const RunError& e) {  // every rank threw it: bad input, or an error all ranks learned of
      if (inv.rank == 0) std::fprintf(stderr, "collbench: error: %s\n", e.what());
      rc = kExitRefused;
    } catch (const std::exception& e) {
      // Past argument checking, ranks may be inside a collective: abort all of them.
      std::fprintf(stderr, "collbench: error on rank %d: %s\n", inv.rank, e.what());
      remove_shm_names();
      end_job(kExitInternal, OtherRanks::must_be_ended);
    }
  }
  finalize_mpi(finalize, rc);
  return rc;
}
