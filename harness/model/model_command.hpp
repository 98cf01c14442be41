#pragma once
// `collbench model predict` and `model best`: an algorithm's time at any rank count and
// size from its schedules and a cost model file (model_file.hpp), without running it.
// Rows carry run's leading columns (transport "model") and predicted_us; `best` adds
// each algorithm's place at its size and prints the fastest and where that changes.
#include <string>
#include <variant>
#include <vector>

#include "collectives/cost_model/model_file.hpp"
#include "collectives/cost_model/predict.hpp"
#include "collectives/schedule/registry.hpp"
#include "harness/common/command_context.hpp"
#include "harness/common/invocation.hpp"
#include "harness/common/numeric_flags.hpp"
#include "harness/common/result_sink.hpp"
#include "harness/common/sizes.hpp"
#include "harness/model/model_fit.hpp"

namespace CLI {
class App;
}

namespace collbench {

struct CostModelOptions {
  bool best = false;
  CostModelFile model;
  Collective collective = Collective::allreduce;
  std::vector<const AlgorithmEntry*> algorithms;  // schedule builders only
  int ranks = 0;
  SizeRange sizes{1024, std::size_t{64} << 20, 2};
  DType dtype = DType::f32;
  ReduceOp op = ReduceOp::sum;
  int root = 0;
  std::size_t segment_bytes = 0;
  PredictMethod method = PredictMethod::automatic;
  ExecutionOrder order = ExecutionOrder::dataflow;
  OutputOptions out;
};

struct CostModelFlags {
  std::string model, collective = "allreduce", algorithms, dtype = "f32", op = "sum", min_bytes = "1K",
                     max_bytes = "64M", segment, method = "auto", order = "dataflow";
  CostModelOptions parsed;
  ModelFitOptions fit;
  CLI::App *predict = nullptr, *best = nullptr, *fit_app = nullptr;
};
CLI::App* add_command(CLI::App& app, CostModelFlags& f);
// Throws std::invalid_argument on bad input (including the model file's).
// `model fit` resolves to its own options.
std::variant<CostModelOptions, ModelFitOptions> resolve_command(const CostModelFlags& f, const CommandContext& c);
int run_command(const CostModelOptions& o, const Invocation& inv);

}  // namespace collbench
