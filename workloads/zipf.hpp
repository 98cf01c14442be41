#pragma once
// Which rows of a sparse table one rank touches in one step: `lookups` ids drawn
// from a Zipf distribution over the rows (row 0 the most frequent, as in a
// frequency-sorted vocabulary), reduced to the distinct ones. Seeded, so every run
// (and every rank that recomputes another rank's rows) draws the same.
#include <cstdint>
#include <vector>

namespace collbench {

class ZipfSampler {
 public:
  // P(row k) proportional to 1 / (k+1)^exponent. Throws std::invalid_argument for no
  // rows or a negative or non-finite exponent.
  ZipfSampler(std::size_t rows, double exponent);
  std::size_t rows() const { return cdf_.size(); }
  // The distinct rows of `lookups` draws, sorted. `seed`, `rank`, `step` and
  // `stream` (which table) select an independent stream.
  std::vector<std::uint64_t> touched_rows(std::size_t lookups, std::uint64_t seed, int rank, std::int64_t step,
                                          std::uint64_t stream) const;

 private:
  std::vector<double> cdf_;
};

}  // namespace collbench
