// MLPerf's DLRM-DCNv2 recommendation model (Criteo 1TB, as in the MLPerf Training v3
// reference and TorchRec's example): 26 embedding tables of dimension 128 with the
// published row counts (capped at 40M), a bottom MLP 13-512-256-128, three low-rank
// (512) DCNv2 cross layers over the 27 x 128 interaction, and a top MLP
// 1024-1024-512-256-1. Tables are model-parallel (table-wise, each rank a contiguous,
// balanced share; uneven when 26 does not divide the ranks, hence an alltoallv); the
// MLPs are data-parallel. Forward: each rank sends its tables' pooled embeddings for
// every other rank's samples; backward: the same sizes back. The tables' gradients
// stay with their owner.
#include <string>

#include "workloads/layer_list.hpp"

namespace collbench {

Workload dlrm_workload(const WorkloadOptions& o) {
  const std::vector<double> rows{40000000, 39060,    17295,    7424,     20265,  3,     7122, 1543, 63,
                                 40000000, 3067956,  405282,   10,       2209,   11938, 155,  4,    976,
                                 14,       40000000, 40000000, 40000000, 590152, 12973, 108,  36};
  const std::size_t dim = 128, batch = o.batch > 0 ? static_cast<std::size_t>(o.batch) : 8192;
  const std::size_t interaction = dim * (rows.size() + 1), rank = 512;
  auto mlp = [](std::vector<std::size_t> widths) {
    std::size_t p = 0;
    for (std::size_t i = 1; i < widths.size(); ++i) p += widths[i - 1] * widths[i] + widths[i];
    return p;
  };
  const std::size_t bottom = mlp({13, 512, 256, 128}), top = mlp({interaction, 1024, 1024, 512, 256, 1});
  const std::size_t cross = 3 * (2 * interaction * rank + interaction);
  LayerList l;
  l.add({{"bottom_mlp.weight", bottom}}, 2.0 * bottom);
  l.add({{"interaction.cross.weight", cross}}, 2.0 * cross);
  l.add({{"top_mlp.weight", top}}, 2.0 * top);
  Workload w;
  w.name = "dlrm-dcnv2";
  w.tensors = l.backward_order();
  const double total = 2.0 * (bottom + cross + top);
  for (bool backward : {false, true}) {
    AllToAllCall c;
    c.backward = backward;
    c.name = backward ? "embeddings (backward)" : "embeddings";
    c.dtype = DType::f32;
    // Every table's pooled lookup for every sample of the global batch, leaving the
    // table's rank: per rank, on average, 26 x batch x 128.
    c.elements_per_rank = rows.size() * batch * dim;
    c.item_weights.assign(rows.size(), 1.0);
    c.items_on_sender = true;
    c.items = "tables";
    // Forward: after the lookups, beside the bottom MLP; backward: once the top MLP and the interaction are done.
    c.position = backward ? 2.0 * (top + cross) / total : 2.0 * bottom / total;
    w.all_to_alls.push_back(c);
  }
  w.description = "MLPerf DLRM-DCNv2, 26 tables x 128 model-parallel, batch " + std::to_string(batch) + " per rank";
  return w;
}

}  // namespace collbench
