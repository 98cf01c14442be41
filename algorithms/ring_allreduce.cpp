#include "ring_allreduce.hpp"

#include "chunking.hpp"

namespace collbench {

Schedule build_ring_allreduce(const ScheduleRequest& q) {
  Schedule s;
  const int n = q.nranks, r = q.rank;
  if (n == 1) {
    if (q.count) s.steps.push_back({{}, {}, {copy_op({BufferId::recv, 0, q.count}, {BufferId::send, 0, q.count})}});
    return s;
  }
  const Chunking chunks{q.count, static_cast<std::size_t>(n)};
  auto chunk = [&](int i) { return static_cast<std::size_t>(((i % n) + n) % n); };
  auto region = [&](BufferId b, std::size_t c) { return Region{b, chunks.offset(c), chunks.size(c)}; };
  const int right = (r + 1) % n, left = (r + n - 1) % n;
  s.scratch_count = chunks.largest();

  // Reduce-scatter: in step k, pass on chunk r-k (own data at first, then the partial sum
  // just made) and fold the left neighbour's chunk r-k-1 into it. Own data always comes
  // from the send buffer, so out of place needs no initial copy.
  for (int k = 0; k < n - 1; ++k) {
    Step st;
    const std::size_t out = chunk(r - k), in = chunk(r - k - 1);
    if (chunks.size(out)) st.sends.push_back({right, region(k == 0 ? BufferId::send : BufferId::recv, out)});
    if (chunks.size(in)) {
      const Region tmp{BufferId::scratch, 0, chunks.size(in)};
      st.recvs.push_back({left, tmp});
      st.ops.push_back(reduce_op(region(BufferId::recv, in), region(BufferId::send, in), tmp));
    }
    s.steps.push_back(std::move(st));
  }
  // Allgather: rank r now owns the reduced chunk r+1; pass the finished chunks around.
  for (int k = 0; k < n - 1; ++k) {
    Step st;
    const std::size_t out = chunk(r + 1 - k), in = chunk(r - k);
    if (chunks.size(out)) st.sends.push_back({right, region(BufferId::recv, out)});
    if (chunks.size(in)) st.recvs.push_back({left, region(BufferId::recv, in)});
    s.steps.push_back(std::move(st));
  }
  return s;
}

}  // namespace collbench
