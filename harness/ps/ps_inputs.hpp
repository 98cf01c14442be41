#pragma once
// What workers push in a parameter-server run: a model of one tensor (dense, or a
// sparse table), gradients of small integers (so every order of summation is exact)
// and, for sparse tables, the rows each step touches.
#include <cstdint>
#include <vector>

#include "algorithms/parameter_server/protocol.hpp"
#include "harness/ps/ps_options.hpp"

namespace collbench {

// The model for one sweep size: a dense tensor of `bytes`, or a table of bytes/row_bytes rows.
PsConfig ps_config_for_size(const PsOptions& o, const ProtocolEntry& mode, std::size_t bytes);

// Rows touched by `rank` in `step`: min(count, table_rows) distinct rows, sorted.
std::vector<std::uint64_t> ps_sparse_rows(int rank, std::int64_t step, std::size_t count, std::size_t table_rows);

// One worker's buffers for a step of a one-tensor model.
class PsStepInputs {
 public:
  PsStepInputs(const PsConfig& config, const PsOptions& o, int rank);
  // Fills the gradient (dense: all of it; sparse: this step's rows) for `step`. Dense
  // tensors are costly to fill, so timed runs fill step 0's once and reuse it.
  void prepare(std::int64_t step);
  std::vector<PsTensorStep>& tensors() { return step_; }
  // The gradient as a dense table (zeros outside the touched rows), for the MPI reference.
  void dense_gradient(std::int64_t step, std::byte* out) const;
  const std::byte* pulled() const { return params_.data(); }  // dense: whole tensor; sparse: the rows

 private:
  void write_gradient(std::int64_t step, const std::vector<std::uint64_t>& rows, bool packed, std::byte* out) const;

  const PsConfig& config_;
  const PsOptions& o_;
  int rank_;
  std::size_t elem_;
  std::vector<std::byte> gradient_, params_;
  std::vector<PsTensorStep> step_;
};

}  // namespace collbench
