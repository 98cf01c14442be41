#pragma once
// `collbench ps`: the parameter server's sweep, with its own options.
#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/parameter_server/plan.hpp"
#include "collectives/schedule/registry.hpp"
#include "harness/run/run_options.hpp"

namespace collbench {

// -w/-n auto for the parameter server: steps per mode, size and round.
inline constexpr int kPsDefaultWarmupSteps = 5, kPsDefaultSteps = 20;

struct PsOptions {
  SizeRange sizes;   // the model's bytes (dense), or the whole table's (sparse)
  Repetitions reps;  // steps, not calls
  DType dtype = DType::f32;
  bool check = true;
  int ranks_per_node = 0;
  std::size_t segment_bytes = 0;  // of the --compare allreduce algorithms
  OutputOptions out;
  WatchdogLimits watchdog;

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
  std::string note;  // said on rank 0 before the run (the old spelling's)
};

// The parameter server's flags as typed.
struct PsFlags {
  std::string modes = "sync", partition = "4096000", assignment = "round-robin", row_bytes, slow_ranks,
              compare = "ring";
  PsOptions parsed;  // what CLI11 parses straight into numbers
};
// `collbench ps`: run's sweep flags (sizes, repetitions, dtype, outputs; those that
// name a collective, an algorithm or a transport hidden, and refused as run -c ps
// refused them) and the parameter server's own.
struct PsCommandFlags {
  RunFlags sweep;
  PsFlags ps;
};
CLI::App* add_command(CLI::App& app, PsCommandFlags& f);
// Throws std::invalid_argument. Refuses (unless --force) absurd requests: too many
// partitions per step, too long a run.
PsOptions resolve_command(const PsCommandFlags& f, const CommandContext& c);

}  // namespace collbench
