#pragma once
// How many elements each rank sends each other rank in an all-to-all. alltoall sends
// the same count to every peer; alltoallv a count per (sender, receiver), given as a
// matrix. Either way a rank packs its blocks in peer order, with no gaps, in both its
// send and its receive buffer (MPI's displacements are the prefix sums), so one set of
// offsets serves the layout, the schedules, the library calls and the validation.
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace collbench {

// An n x n matrix of element counts, row = sender, with the prefix sums of each row
// (send offsets) and each column (receive offsets).
class CountMatrix {
 public:
  // counts[from * n + to]; throws std::invalid_argument unless it holds n * n entries.
  CountMatrix(int nranks, std::vector<std::size_t> counts);
  int nranks() const { return n_; }
  std::size_t count(int from, int to) const { return counts_[index(from, to)]; }
  std::size_t send_offset(int from, int to) const { return send_at_[index(from, to)]; }
  std::size_t recv_offset(int to, int from) const { return recv_at_[index(from, to)]; }
  std::size_t send_total(int from) const { return send_end_[static_cast<std::size_t>(from)]; }
  std::size_t recv_total(int to) const { return recv_end_[static_cast<std::size_t>(to)]; }
  std::size_t total() const;
  // Whether count(a, b) == count(b, a) everywhere: MPI_IN_PLACE needs it.
  bool symmetric() const;

 private:
  std::size_t index(int from, int to) const {
    return static_cast<std::size_t>(from) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(to);
  }
  int n_;
  std::vector<std::size_t> counts_, send_at_, recv_at_, send_end_, recv_end_;
};

// The blocks of one all-to-all: a matrix, or `uniform` elements between every pair
// (alltoall, and alltoallv with no matrix given), which costs nothing to hold at any n.
class PeerBlocks {
 public:
  PeerBlocks(int nranks, std::size_t uniform, const CountMatrix* matrix = nullptr)
      : n_(nranks), uniform_(uniform), m_(matrix) {}
  int nranks() const { return n_; }
  std::size_t count(int from, int to) const { return m_ ? m_->count(from, to) : uniform_; }
  std::size_t send_offset(int from, int to) const {
    return m_ ? m_->send_offset(from, to) : uniform_ * static_cast<std::size_t>(to);
  }
  std::size_t recv_offset(int to, int from) const {
    return m_ ? m_->recv_offset(to, from) : uniform_ * static_cast<std::size_t>(from);
  }
  std::size_t send_total(int from) const { return m_ ? m_->send_total(from) : uniform_ * static_cast<std::size_t>(n_); }
  std::size_t recv_total(int to) const { return m_ ? m_->recv_total(to) : uniform_ * static_cast<std::size_t>(n_); }
  // Which sender element i of rank `to`'s receive buffer comes from, and its index in
  // that sender's send buffer (i < recv_total(to)).
  std::pair<int, std::size_t> source_of(int to, std::size_t i) const;
  bool symmetric() const { return !m_ || m_->symmetric(); }

 private:
  int n_;
  std::size_t uniform_;
  const CountMatrix* m_;
};

using SharedCounts = std::shared_ptr<const CountMatrix>;

}  // namespace collbench
