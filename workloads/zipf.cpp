#include "workloads/zipf.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace collbench {

ZipfSampler::ZipfSampler(std::size_t rows, double exponent) {
  if (rows == 0) throw std::invalid_argument("a Zipf distribution needs at least one row");
  if (!std::isfinite(exponent) || exponent < 0)
    throw std::invalid_argument("the Zipf exponent must be a non-negative number");
  cdf_.resize(rows);
  double sum = 0;
  for (std::size_t k = 0; k < rows; ++k) cdf_[k] = sum += std::pow(static_cast<double>(k + 1), -exponent);
  for (double& c : cdf_) c /= sum;
}

std::vector<std::uint64_t> ZipfSampler::touched_rows(std::size_t lookups, std::uint64_t seed, int rank,
                                                     std::int64_t step, std::uint64_t stream) const {
  std::seed_seq seq{static_cast<std::uint32_t>(seed),       static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(rank),       static_cast<std::uint32_t>(step),
                    static_cast<std::uint32_t>(step >> 32), static_cast<std::uint32_t>(stream)};
  std::mt19937_64 rng(seq);
  // Drawn by hand rather than with std::uniform_real_distribution, whose output the
  // standard leaves to the library: the rows must not change with the toolchain.
  std::vector<std::uint64_t> rows(lookups);
  for (auto& r : rows) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    r = static_cast<std::uint64_t>(std::upper_bound(cdf_.begin(), cdf_.end() - 1, u) - cdf_.begin());
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

}  // namespace collbench
