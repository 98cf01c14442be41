#include "collectives/block_counts.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace collbench {

CountMatrix::CountMatrix(int nranks, std::vector<std::size_t> counts) : n_(nranks), counts_(std::move(counts)) {
  const std::size_t n = static_cast<std::size_t>(std::max(nranks, 0));
  if (nranks < 1 || counts_.size() != n * n)
    throw std::invalid_argument("a count matrix for " + std::to_string(nranks) + " ranks needs " +
                                std::to_string(n * n) + " counts, not " + std::to_string(counts_.size()));
  send_at_.resize(n * n);
  recv_at_.resize(n * n);
  send_end_.assign(n, 0);
  recv_end_.assign(n, 0);
  for (std::size_t from = 0; from < n; ++from)
    for (std::size_t to = 0; to < n; ++to) {
      const std::size_t k = from * n + to;
      send_at_[k] = send_end_[from];
      send_end_[from] += counts_[k];
      recv_at_[k] = recv_end_[to];
      recv_end_[to] += counts_[k];
    }
}

std::size_t CountMatrix::total() const {
  std::size_t t = 0;
  for (std::size_t c : counts_) t += c;
  return t;
}

bool CountMatrix::symmetric() const {
  for (int a = 0; a < n_; ++a)
    for (int b = a + 1; b < n_; ++b)
      if (count(a, b) != count(b, a)) return false;
  return true;
}

std::pair<int, std::size_t> PeerBlocks::source_of(int to, std::size_t i) const {
  if (!m_) {
    const int from = static_cast<int>(i / uniform_);
    return {from, uniform_ * static_cast<std::size_t>(to) + i % uniform_};
  }
  // The last sender whose block starts at or before i (empty blocks start where the next does).
  int lo = 0, hi = n_ - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (m_->recv_offset(to, mid) <= i)
      lo = mid;
    else
      hi = mid - 1;
  }
  return {lo, m_->send_offset(lo, to) + (i - m_->recv_offset(to, lo))};
}

}  // namespace collbench
