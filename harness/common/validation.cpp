#include "harness/common/validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "collectives/kernels/dtype_visit.hpp"
#include "collectives/kernels/reduce_kernels.hpp"

namespace collbench {
namespace {

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Largest |value| of a sum input so that no partial sum over n ranks is inexact.
std::int64_t sum_magnitude(const InputSpec& s) {
  const double exact = std::ldexp(1.0, exact_integer_bits(s.dtype)) - 1;
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(exact / s.nranks), 1, 3);
}

// Products of 2 and 0.5 stay exact unless they can overflow the exponent range.
bool prod_uses_powers_of_two(const InputSpec& s) {
  if (!is_floating(s.dtype)) return true;
  const int max_exp = s.dtype == DType::f16 ? 15 : s.dtype == DType::f64 ? 1023 : 127;
  return s.nranks < max_exp;
}

template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, BFloat16>)
    return BFloat16(static_cast<float>(v));
  else
    return static_cast<T>(v);
}
template <class T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, BFloat16>)
    return static_cast<double>(static_cast<float>(v));
  else
    return static_cast<double>(v);
}

// input_value's choices for one spec, made once for a whole buffer: a checked call of
// 170 MB computes its inputs and expected result for tens of millions of elements.
class InputValues {
 public:
  explicit InputValues(const InputSpec& s) {
    if (!uses_reduce_op(s.collective)) {
      offset_ = std::min<std::int64_t>(1000, std::int64_t{1} << (exact_integer_bits(s.dtype) - 1));
    } else if (s.op == ReduceOp::sum) {
      offset_ = sum_magnitude(s);
    } else if (s.op == ReduceOp::prod) {
      static constexpr double powers[] = {1, 2, -1, 0.5}, signs[] = {1, -1, 1, -1}, ints[] = {1, 2, -1, 1};
      table_ = !is_floating(s.dtype) ? ints : prod_uses_powers_of_two(s) ? powers : signs;
      return;
    } else {  // min, max
      offset_ = 100;
    }
    modulus_ = static_cast<std::uint64_t>(2 * offset_ + 1);
  }
  // Integers in [-offset, offset], or for prod one of four values.
  double operator()(int rank, std::size_t index) const {
    const std::uint64_t h =
        mix(index * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(rank) * 0xBF58476D1CE4E5B9ULL + 1);
    if (table_) return table_[h % 4];
    return static_cast<double>(static_cast<std::int64_t>(h % modulus_) - offset_);
  }

 private:
  const double* table_ = nullptr;
  std::int64_t offset_ = 0;
  std::uint64_t modulus_ = 1;
};

}  // namespace

double input_value(const InputSpec& s, int rank, std::size_t index) { return InputValues(s)(rank, index); }

void fill_input(const InputSpec& s, int rank, void* buf, std::size_t count) {
  visit_dtype(s.dtype, [&](auto zero) {
    using T = decltype(zero);
    auto* p = static_cast<T*>(buf);
    const InputValues value(s);
    for (std::size_t i = 0; i < count; ++i) p[i] = from_double<T>(value(rank, i));
  });
}

void poison(void* buf, std::size_t bytes) { std::memset(buf, 0xA5, bytes); }

void poison_output(const CollectiveCall& call, const BufferLayout& layout) {
  poison(call.recv, layout.recv_count * dtype_size(call.dtype));
}

void load_inputs(const CollectiveCall& call, const BufferLayout& layout, int rank, int nranks) {
  poison_output(call, layout);
  if (traits(call.collective).only_root_contributes && rank != call.root) return;
  // The send buffer is the caller's input buffer; only collectives treat it as const.
  fill_input({call.collective, call.dtype, call.op, nranks}, rank, const_cast<void*>(call.send), layout.send_count);
}

double tolerance(const InputSpec& s) {
  if (!uses_reduce_op(s.collective) || s.op != ReduceOp::sum || !is_floating(s.dtype)) return 0;
  const double n = s.nranks, k = static_cast<double>(sum_magnitude(s));
  const double exact = std::ldexp(1.0, exact_integer_bits(s.dtype));
  if (n * k < exact) return 0;
  // Each of the ~log2(n) levels of a reduction may round by half an ulp of the largest partial sum.
  return n * k / exact * std::ceil(std::log2(n)) * 2;
}

std::size_t count_mismatches(DType t, const void* got, const void* want, std::size_t count, double tol) {
  return visit_dtype(t, [&](auto zero) {
    using T = decltype(zero);
    const auto* g = static_cast<const T*>(got);
    const auto* w = static_cast<const T*>(want);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if constexpr (std::is_integral_v<T>) {
        bad += g[i] != w[i];
      } else {
        const double a = to_double(g[i]), b = to_double(w[i]);
        bad += !(a == b || std::fabs(a - b) <= tol);
      }
    }
    return bad;
  });
}

namespace {

// The blocks of one rank's expected result that are checked, and each block's expected
// elements computed on demand: ExpectedResult keeps them for many checks, a single check
// compares them as they come (no buffer the size of the result: a replay's checked
// 170 MB bucket needed a second one, zero-filled and faulted in, only to compare it).
class ExpectedBlocks {
 public:
  using Block = ExpectedResult::Block;
  static constexpr std::size_t kBlock = 1 << 14;

  ExpectedBlocks(const InputSpec& s, int rank, int root, std::size_t count, const CountMatrix* counts)
      : spec_(s), traits_(traits(s.collective)), q_{count, s.nranks, rank, root, false, counts}, value_(s) {
    const std::size_t results = traits_.layout(q_).result_count;
    if (results == 0) return;
    const std::size_t blocks = (results + kBlock - 1) / kBlock;
    std::size_t stride = 1;
    if (traits_.uses_reduce_op) {
      // A reduction's result elements stand for consecutive input elements of all ranks;
      // blocks are spread evenly when folding them all would be too costly.
      first_index_ = traits_.result_of(q_, 0).index;
      constexpr double kBudget = 64.0 * 1024 * 1024;  // rank-elements
      stride = std::max<std::size_t>(
          1, static_cast<std::size_t>(std::ceil(static_cast<double>(results) * s.nranks / kBudget)));
      scratch_.resize(kBlock * dtype_size(s.dtype));
    }
    for (std::size_t b = 0; b < blocks; b += stride) blocks_.push_back({b * kBlock, std::min(kBlock, results - b * kBlock)});
  }

  const std::vector<Block>& blocks() const { return blocks_; }

  // Block b's expected elements into `out` (b.count elements of the dtype).
  void compute(const Block& b, std::byte* out) {
    visit_dtype(spec_.dtype, [&](auto zero) {
      using T = decltype(zero);
      auto* a = reinterpret_cast<T*>(out);
      if (!traits_.uses_reduce_op) {  // every result element is one rank's input element
        for (std::size_t i = 0; i < b.count; ++i) {
          const ResultSource src = traits_.result_of(q_, b.first + i);
          a[i] = from_double<T>(value_(src.from, src.index));
        }
        return;
      }
      // Every rank's input folded with the same kernel; exact inputs make the order irrelevant.
      auto* x = reinterpret_cast<T*>(scratch_.data());
      for (std::size_t i = 0; i < b.count; ++i) a[i] = from_double<T>(value_(0, first_index_ + b.first + i));
      for (int r = 1; r < spec_.nranks; ++r) {
        for (std::size_t i = 0; i < b.count; ++i) x[i] = from_double<T>(value_(r, first_index_ + b.first + i));
        reduce(spec_.dtype, spec_.op, a, a, x, b.count);
      }
    });
  }

 private:
  InputSpec spec_;
  const CollectiveTraits& traits_;
  LayoutRequest q_;
  InputValues value_;
  std::size_t first_index_ = 0;
  std::vector<Block> blocks_;
  std::vector<std::byte> scratch_;  // one rank's inputs of a block
};

}  // namespace

ExpectedResult::ExpectedResult(const InputSpec& s, int rank, int root, std::size_t count, const CountMatrix* counts)
    : dtype_(s.dtype), tolerance_(tolerance(s)) {
  ExpectedBlocks expected(s, rank, root, count, counts);
  blocks_ = expected.blocks();
  std::size_t total = 0;
  for (const Block& b : blocks_) total += b.count;
  const std::size_t elem = dtype_size(s.dtype);
  values_.resize(total * elem);
  std::byte* at = values_.data();
  for (const Block& b : blocks_) {
    expected.compute(b, at);
    at += b.count * elem;
  }
}

std::size_t ExpectedResult::count_wrong(const void* recv) const {
  const std::size_t elem = dtype_size(dtype_);
  const auto* out = static_cast<const std::byte*>(recv);
  const std::byte* want = values_.data();
  std::size_t bad = 0;
  for (const Block& b : blocks_) {
    bad += count_mismatches(dtype_, out + b.first * elem, want, b.count, tolerance_);
    want += b.count * elem;
  }
  return bad;
}

std::size_t count_wrong_results(const InputSpec& s, int rank, int root, std::size_t count, const void* recv) {
  ExpectedBlocks expected(s, rank, root, count, nullptr);
  const std::size_t elem = dtype_size(s.dtype);
  const double tol = tolerance(s);
  std::vector<std::byte> want(ExpectedBlocks::kBlock * elem);
  std::size_t bad = 0;
  for (const ExpectedResult::Block& b : expected.blocks()) {
    expected.compute(b, want.data());
    bad += count_mismatches(s.dtype, static_cast<const std::byte*>(recv) + b.first * elem, want.data(), b.count, tol);
  }
  return bad;
}

}  // namespace collbench
