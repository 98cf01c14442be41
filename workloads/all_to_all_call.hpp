#pragma once
// An all-to-all inside a training step's forward or backward pass: a mixture-of-experts
// layer's dispatch and combine, an embedding model's exchange of pooled lookups. Unlike
// a gradient allreduce it sits on the critical path: the layer after it waits for it.
// Who sends how much follows from items spread over the ranks (experts, tables), each
// rank holding a contiguous, balanced share: a token routed to expert e goes to the rank
// holding e; a table's pooled lookups leave from the rank holding the table.
#include <cstddef>
#include <string>
#include <vector>

#include "collectives/block_counts.hpp"
#include "collectives/dtype.hpp"

namespace collbench {

struct AllToAllCall {
  std::string name;       // e.g. "moe.3 dispatch"
  bool backward = false;  // in the backward pass (else the forward)
  double position = 0;    // the share of its pass's compute that comes before it, 0..1
  DType dtype = DType::bf16;
  std::size_t elements_per_rank = 0;  // what one rank sends in all, on average over the ranks
  std::vector<double> item_weights;   // the items' popularity (or size); empty: every pair alike
  bool items_on_sender = false;       // a sender's items set what it sends (tables), else a receiver's (experts)
  bool items_must_divide = false;     // every rank must hold as many items (expert parallelism)
  std::string items = "items";        // what they are, for messages: "experts", "tables"
  std::size_t bytes_per_rank() const { return elements_per_rank * dtype_size(dtype); }
};

// The call's count matrix on `nranks` ranks. Throws std::invalid_argument when the items
// must divide over the ranks and do not, or there are fewer items than ranks.
SharedCounts all_to_all_counts(const AllToAllCall& call, int nranks);

}  // namespace collbench
