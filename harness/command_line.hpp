#pragma once
// The command line: one options type per command (the rows of command_line.cpp),
// parsed and checked the same way on every rank; nothing here talks to other ranks.
#include <string>
#include <variant>

#include "collectives/schedule/registry.hpp"
#include "harness/common/request_limits.hpp"
#include "harness/list/list_command.hpp"
#include "harness/model/model_command.hpp"
#include "harness/model/model_fit.hpp"
#include "harness/p2p/p2p_command.hpp"
#include "harness/ps/ps_command.hpp"
#include "harness/replay/replay_command.hpp"
#include "harness/run/run_command.hpp"
#include "harness/schedule/schedule_command.hpp"
#include "harness/tune/tune_command.hpp"
#include "harness/workloads/workloads_command.hpp"

namespace collbench {

struct HelpText {
  std::string text;
};
struct CommandError {
  std::string text;
};

// Every command's options; each has a run_command(options, invocation) in its folder.
using Command =
    std::variant<CommandError, HelpText, ListOptions, RunOptions, PsOptions, ReplayOptions, WorkloadsOptions,
                 ScheduleOptions, P2pOptions, CostModelOptions, ModelFitOptions, TuneOptions>;

// "collbench VERSION (git REVISION, build type, MPI built with, CUDA, NCCL)", as --version prints it.
std::string version_text();

// `nranks` lets rank-dependent checks (a root, a server count) happen here too, and
// `machine` the request limits (memory).
Command parse_command_line(int argc, const char* const* argv, const Registry& registry, int nranks,
                           const Machine& machine = {});

}  // namespace collbench
