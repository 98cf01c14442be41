#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "algorithms/parameter_server/plan.hpp"
#include "collectives/registry.hpp"
#include "harness/replay/replay_options.hpp"

namespace collbench {

enum class TimingPolicy { per_call, loop };

// `--collective ps`: the parameter server's own settings.
struct PsRunOptions {
  int servers = 1;
  std::vector<const ProtocolEntry*> modes;  // resolved from --ps-mode
  int staleness = 2;
  double learning_rate = 0.01;
  std::size_t partition_bytes = 4096000;
  PsAssignment assignment = PsAssignment::round_robin;
  std::size_t sparse_rows = 0;  // rows each worker touches per step; 0: dense
  std::size_t row_bytes = 0;
  std::vector<int> slow_ranks;  // workers that wait slow_us before every step
  double slow_us = 0;
  std::vector<const AlgorithmEntry*> compare;  // allreduce algorithms run among the workers
  bool sparse() const { return sparse_rows > 0; }
};

struct RunOptions {
  Collective collective = Collective::allreduce;
  std::vector<const AlgorithmEntry*> algorithms;  // resolved; baseline first
  std::size_t min_bytes = 8;
  std::size_t max_bytes = std::size_t{64} << 20;
  double step_factor = 2;
  int warmup = 5;
  int iters = 20;
  int rounds = 1;
  DType dtype = DType::f32;
  ReduceOp op = ReduceOp::sum;
  int root = 0;
  bool check = true;
  bool in_place = false;
  TimingPolicy timing = TimingPolicy::per_call;
  std::size_t segment_bytes = 0;  // pipelined algorithms; 0: each algorithm's default
  int ranks_per_node = 0;         // emulated nodes; 0: from MPI_COMM_TYPE_SHARED
  AlgorithmParams params;         // filled in once the topology is known
  bool parameter_server = false;  // --collective ps; `collective` is then allreduce (its check)
  PsRunOptions ps;
  ReplayOptions replay;   // `collbench replay` and `collbench workloads show`
  std::string csv_path;   // empty: results/<stamp>.csv
  std::string json_path;  // empty: results/<stamp>.json
  std::string output_dir = "results";
};

struct Command {
  enum class Kind { run, replay, workloads_list, workloads_show, list, help, error };
  Kind kind = Kind::error;
  RunOptions run;
  std::string text;  // help or error message
};

// Parses and validates the command line the same way on every rank; nothing here
// talks to other ranks. `nranks` lets rank-dependent checks (root) happen here too.
Command parse_command_line(int argc, const char* const* argv, const Registry& registry, int nranks);

std::string timing_policy_text(TimingPolicy t);
const char* timing_policy_name(TimingPolicy t);

}  // namespace collbench
