#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "collectives/kernels/dtype_visit.hpp"
#include "collectives/kernels/reduce_kernels.hpp"
#include "harness/common/validation.hpp"

using namespace collbench;

namespace {
// Builds the correct allreduce result for `n` ranks the slow way: fold each rank's input.
std::vector<std::byte> correct_allreduce(const InputSpec& s, std::size_t count) {
  const std::size_t elem = dtype_size(s.dtype);
  std::vector<std::byte> acc(count * elem), x(count * elem);
  fill_input(s, 0, acc.data(), count);
  for (int r = 1; r < s.nranks; ++r) {
    fill_input(s, r, x.data(), count);
    reduce(s.dtype, s.op, acc.data(), acc.data(), x.data(), count);
  }
  return acc;
}
}  // namespace

TEST(Validation, InputsAreExactlyRepresentableSmallNumbers) {
  for (DType t : kAllDTypes)
    for (ReduceOp op : kAllReduceOps) {
      const InputSpec s{Collective::allreduce, t, op, 5};
      for (std::size_t i = 0; i < 500; ++i) {
        const double v = input_value(s, 3, i);
        EXPECT_LE(std::fabs(v), 100);
        EXPECT_EQ(v, std::ldexp(std::round(std::ldexp(v, 1)), -1));  // multiples of 0.5
      }
      EXPECT_EQ(tolerance(s), 0) << "small rank counts compare exactly";
    }
}

TEST(Validation, InputsDifferBetweenRanksAndElements) {
  const InputSpec s{Collective::allreduce, DType::f32, ReduceOp::sum, 4};
  int same_rank = 0, same_index = 0;
  for (std::size_t i = 0; i < 200; ++i) {
    same_rank += input_value(s, 0, i) == input_value(s, 1, i);
    same_index += input_value(s, 0, i) == input_value(s, 0, i + 1);
  }
  EXPECT_LT(same_rank, 60);
  EXPECT_LT(same_index, 60);
}

TEST(Validation, ClosedFormCheckAcceptsTheRightAnswerAndCountsEachWrongElement) {
  for (DType t : kAllDTypes)
    for (ReduceOp op : kAllReduceOps) {
      const InputSpec s{Collective::allreduce, t, op, 3};
      auto out = correct_allreduce(s, 1000);
      EXPECT_EQ(count_wrong_results(s, 0, 0, 1000, out.data()), 0u) << dtype_name(t) << " " << reduce_op_name(op);
      poison(out.data() + 10 * dtype_size(t), 3 * dtype_size(t));
      EXPECT_EQ(count_wrong_results(s, 0, 0, 1000, out.data()), 3u) << dtype_name(t) << " " << reduce_op_name(op);
    }
}

TEST(Validation, GatherAndBroadcastExpectations) {
  const InputSpec g{Collective::gather, DType::bf16, ReduceOp::sum, 3};
  std::vector<std::byte> out(3 * 50 * 2);
  for (int r = 0; r < 3; ++r) fill_input(g, r, out.data() + r * 100, 50);
  EXPECT_EQ(count_wrong_results(g, 1, 1, 50, out.data()), 0u);
  EXPECT_EQ(count_wrong_results(g, 0, 1, 50, nullptr), 0u) << "non-roots receive nothing";
  std::swap(out[0], out[100]);
  EXPECT_GT(count_wrong_results(g, 1, 1, 50, out.data()), 0u);

  const InputSpec b{Collective::broadcast, DType::i64, ReduceOp::sum, 4};
  std::vector<std::byte> buf(80 * 8);
  fill_input(b, 2, buf.data(), 80);
  EXPECT_EQ(count_wrong_results(b, 0, 2, 80, buf.data()), 0u);
  EXPECT_GT(count_wrong_results(b, 0, 1, 80, buf.data()), 0u) << "data from the wrong root";
}

TEST(Validation, ManyRankBf16SumsGetAStatedTolerance) {
  EXPECT_EQ(tolerance({Collective::allreduce, DType::bf16, ReduceOp::sum, 85}), 0);
  EXPECT_GT(tolerance({Collective::allreduce, DType::bf16, ReduceOp::sum, 300}), 0);
  EXPECT_EQ(tolerance({Collective::allreduce, DType::i32, ReduceOp::sum, 100000}), 0);
}

TEST(Validation, MismatchCountUsesExactComparison) {
  std::vector<float> a = {1, 2, 3}, b = {1, 2.0000002f, 3};
  EXPECT_EQ(count_mismatches(DType::f32, a.data(), b.data(), 3, 0), 1u);
  std::vector<std::int64_t> x = {1, 5}, y = {1, 5};
  EXPECT_EQ(count_mismatches(DType::i64, x.data(), y.data(), 2, 0), 0u);
}
