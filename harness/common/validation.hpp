#pragma once
// Inputs are small integers (or powers of two for prod) chosen per collective, dtype,
// op and rank count so that every order of reduction gives exactly the same result;
// results are then compared exactly (with a stated tolerance only where exactness
// cannot be guaranteed, e.g. bf16 sums over hundreds of ranks).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectives/collective.hpp"

namespace collbench {

struct InputSpec {
  Collective collective = Collective::allreduce;
  DType dtype = DType::f32;
  ReduceOp op = ReduceOp::sum;
  int nranks = 1;
};

double input_value(const InputSpec& spec, int rank, std::size_t index);
void fill_input(const InputSpec& spec, int rank, void* buf, std::size_t count);
// Fills with a byte pattern no valid result equals, so a stale buffer cannot pass.
void poison(void* buf, std::size_t bytes);

// Poisons the call's receive buffer (all of it the layout gives the call).
void poison_output(const CollectiveCall& call, const BufferLayout& layout);
// Poisons the call's receive buffer, then writes `rank`'s input where the call reads
// it (for broadcast only the root has input).
void load_inputs(const CollectiveCall& call, const BufferLayout& layout, int rank, int nranks);

// Absolute tolerance used when comparing results (0: exact).
double tolerance(const InputSpec& spec);

// Elements of `got` that differ from `want` by more than `tol`.
std::size_t count_mismatches(DType t, const void* got, const void* want, std::size_t count, double tol);

// One rank's closed-form expected result, computed once and compared with any number
// of outputs (every algorithm, every checked call). For reductions over many ranks and
// elements it holds evenly spread blocks covering at most ~64M rank-elements, so the
// check stays affordable at scale.
class ExpectedResult {
 public:
  // `counts`: alltoallv's matrix (null: `count` to every peer).
  ExpectedResult(const InputSpec& spec, int rank, int root, std::size_t count, const CountMatrix* counts = nullptr);
  // Elements of `recv` (this rank's receive buffer) that differ from the expected result.
  std::size_t count_wrong(const void* recv) const;

  struct Block {
    std::size_t first, count;  // result elements
  };

 private:
  DType dtype_;
  double tolerance_;
  std::vector<Block> blocks_;
  std::vector<std::byte> values_;  // the blocks' expected elements, one after another
};

// ExpectedResult(spec, rank, root, count).count_wrong(recv) for a single check, computed
// block by block as it compares (no copy of the whole expected result).
std::size_t count_wrong_results(const InputSpec& spec, int rank, int root, std::size_t count, const void* recv);

}  // namespace collbench
