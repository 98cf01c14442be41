#pragma once
// `collbench schedule`: one rank's schedule of any reference algorithm, for any rank
// count, size, root and node layout (steps, peers, regions, bytes, reductions), with
// every rank's summary and the symbolic executor's verdict, as text or JSON.
#include <cstddef>
#include <string>

#include "collectives/collective.hpp"
#include "collectives/schedule/registry.hpp"
#include "harness/common/command_context.hpp"
#include "harness/common/invocation.hpp"

namespace CLI {
class App;
}

namespace collbench {

struct ScheduleOptions {
  const AlgorithmEntry* algorithm = nullptr;
  int ranks = 8;
  int rank = 0;
  std::size_t count = 0;  // per rank, as the builders see it
  std::size_t bytes = 0;  // as `run` counts a size
  DType dtype = DType::f32;
  int root = 0;
  bool in_place = false;
  int ranks_per_node = 0;         // 0: one node
  std::size_t segment_bytes = 0;  // 0: the algorithm's default
  bool json = false;
};

struct ScheduleFlags {
  std::string collective = "allreduce", algorithm = "ring", dtype = "f32", bytes = "1K", segment;
  ScheduleOptions parsed;
};
CLI::App* add_command(CLI::App& app, ScheduleFlags& f);
ScheduleOptions resolve_command(const ScheduleFlags& f, const CommandContext& c);  // throws std::invalid_argument
int run_command(const ScheduleOptions& o, const Invocation& inv);

}  // namespace collbench
