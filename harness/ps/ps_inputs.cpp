#include "harness/ps/ps_inputs.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <unordered_set>

namespace collbench {

PsConfig ps_config_for_size(const PsOptions& o, const ProtocolEntry& mode, std::size_t bytes) {
  PsConfig c;
  c.mode = ps_mode_of(mode);
  c.staleness = o.staleness;
  c.learning_rate = o.learning_rate;
  c.dtype = o.dtype;
  c.partition_bytes = o.partition_bytes;
  c.assignment = o.assignment;
  const std::size_t elem = dtype_size(o.dtype);
  if (o.sparse())
    c.tensors.push_back({"embedding", bytes / o.row_bytes, o.row_bytes / elem, true});
  else
    c.tensors.push_back({"weights", bytes / elem, 1, false});
  return c;
}

std::vector<std::uint64_t> ps_sparse_rows(int rank, std::int64_t step, std::size_t count, std::size_t table_rows) {
  std::vector<std::uint64_t> rows;
  if (count >= table_rows) {
    rows.resize(table_rows);
    std::iota(rows.begin(), rows.end(), std::uint64_t{0});
    return rows;
  }
  std::mt19937_64 rng(static_cast<std::uint64_t>(rank) * 1000003ULL + static_cast<std::uint64_t>(step) * 7919ULL + 1);
  std::uniform_int_distribution<std::uint64_t> pick(0, table_rows - 1);
  std::unordered_set<std::uint64_t> seen;
  while (rows.size() < count)
    if (std::uint64_t r = pick(rng); seen.insert(r).second) rows.push_back(r);
  std::sort(rows.begin(), rows.end());
  return rows;
}

namespace {
// The parameter server's dtypes only (f32, f64).
template <class F>
void visit_ps_dtype(DType t, F&& f) {
  if (t == DType::f64)
    f(double{});
  else
    f(float{});
}

// Small integers in [-4, 4] that differ by rank, step and element.
double gradient_value(int rank, std::int64_t step, std::size_t element) {
  return static_cast<double>(
      static_cast<std::int64_t>(
          (element * 3 + static_cast<std::size_t>(rank) * 5 + static_cast<std::size_t>(step) * 7) % 9) -
      4);
}
}  // namespace

PsStepInputs::PsStepInputs(const PsConfig& config, const PsOptions& o, int rank)
    : config_(config), o_(o), rank_(rank), elem_(dtype_size(config.dtype)) {
  const PsTensor& t = config_.tensors.at(0);
  const std::size_t elements = t.sparse ? std::min(o_.sparse_rows, t.rows) * t.row_elements : t.elements();
  gradient_.resize(elements * elem_);
  params_.resize(elements * elem_);
  step_.resize(1);
  step_[0].gradient = gradient_.data();
  step_[0].params = params_.data();
}

void PsStepInputs::prepare(std::int64_t step) {
  const PsTensor& t = config_.tensors[0];
  if (t.sparse) step_[0].rows = ps_sparse_rows(rank_, step, o_.sparse_rows, t.rows);
  write_gradient(step, step_[0].rows, true, gradient_.data());
}

void PsStepInputs::dense_gradient(std::int64_t step, std::byte* out) const {
  const PsTensor& t = config_.tensors[0];
  std::fill(out, out + t.elements() * elem_, std::byte{0});
  write_gradient(step, t.sparse ? ps_sparse_rows(rank_, step, o_.sparse_rows, t.rows) : std::vector<std::uint64_t>{},
                 false, out);
}

// Dense: the whole tensor. Sparse: `rows`, one after another (`packed`) or each at its
// place in the table.
void PsStepInputs::write_gradient(std::int64_t step, const std::vector<std::uint64_t>& rows, bool packed,
                                  std::byte* out) const {
  const PsTensor& t = config_.tensors[0];
  visit_ps_dtype(config_.dtype, [&](auto zero) {
    using T = decltype(zero);
    auto* g = reinterpret_cast<T*>(out);
    if (!t.sparse) {
      for (std::size_t i = 0; i < t.elements(); ++i) g[i] = static_cast<T>(gradient_value(rank_, step, i));
      return;
    }
    for (std::size_t j = 0; j < rows.size(); ++j)
      for (std::size_t e = 0; e < t.row_elements; ++e) {
        const std::size_t element = rows[j] * t.row_elements + e;
        g[(packed ? j * t.row_elements : rows[j] * t.row_elements) + e] =
            static_cast<T>(gradient_value(rank_, step, element));
      }
  });
}

}  // namespace collbench
