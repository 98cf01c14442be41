// Mixture-of-experts language models with their published shapes, trained with expert
// parallelism over all ranks (each rank holds experts / ranks of every MoE layer, so
// expert gradients stay local) and data parallelism for everything else (allreduced).
// Each MoE layer's forward sends every token to its top-k experts and back (dispatch,
// combine); backward does the same in reverse: four all-to-alls per layer and step.
//   dropless (Megatron, DeepEP): an alltoallv of the routed tokens, tokens x top_k x
//     hidden in all, split by where the chosen experts live, after an alltoall of the
//     per-expert token counts;
//   padded (DeepSpeed, Tutel): every expert gets its capacity C = ceil(tokens / experts
//     x capacity factor x top_k) slots, an alltoall of experts x C x hidden; tokens over
//     capacity are dropped, so skew costs quality there, not time.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>

#include "workloads/layer_list.hpp"
#include "workloads/traffic.hpp"

namespace collbench {
namespace {

struct MoeShape {
  std::string name, title;
  int moe_layers, dense_layers;  // dense_layers: leading layers with a dense FFN (DeepSeek-V3: 3)
  std::size_t hidden, expert_ffn, dense_ffn, vocab;
  int experts, shared_experts, top_k;
  std::size_t attention_params;  // per layer
  std::string style;             // the frameworks' usual one for this model
};

// Mixtral-8x7B (Jiang et al. 2024): GQA with 32 query and 8 key/value heads of 128.
// DeepSeek-V3 (2024): MLA attention (q rank 1536, kv rank 512, 128 heads of 128 + 64
// rope), 3 dense layers then 58 MoE layers of 256 routed experts and 1 shared.
const MoeShape kMixtral{
    "mixtral-8x7b", "Mixtral-8x7B", 32, 0, 4096, 14336, 0, 32000, 8, 0, 2, 4096 * 4096 * 2 + 4096 * 1024 * 2,
    "dropless"};
const MoeShape kDeepSeek{"deepseek-v3",
                         "DeepSeek-V3-like",
                         58,
                         3,
                         7168,
                         2048,
                         18432,
                         129280,
                         256,
                         1,
                         8,
                         std::size_t{7168} * 1536 + std::size_t{1536} * 128 * 192 + std::size_t{7168} * 576 +
                             std::size_t{512} * 128 * 256 + std::size_t{128} * 128 * 7168,
                         "dropless"};

AllToAllCall moe_call(const std::string& name, bool backward, std::size_t elements, DType t,
                      const std::vector<double>& experts) {
  AllToAllCall c;
  c.name = name;
  c.backward = backward;
  c.dtype = t;
  c.elements_per_rank = elements;
  c.item_weights = experts;
  c.items_must_divide = true;
  c.items = "experts";
  return c;
}

}  // namespace

Workload moe_workload(const std::string& name, const WorkloadOptions& o) {
  const MoeShape& m = name == kMixtral.name ? kMixtral : kDeepSeek;
  const std::size_t tokens =
      static_cast<std::size_t>(o.batch > 0 ? o.batch : 1) * static_cast<std::size_t>(o.seq_len > 0 ? o.seq_len : 4096);
  const int moe_layers = o.layers > 0 ? std::min(o.layers, m.moe_layers) : m.moe_layers;
  const int dense_layers = moe_layers == m.moe_layers ? m.dense_layers : 0;
  const std::string style = o.moe_style.empty() ? m.style : o.moe_style;
  if (style != "dropless" && style != "padded")
    throw std::invalid_argument("--moe-style " + style + ": valid: dropless, padded");
  const double cf = o.capacity_factor > 0 ? o.capacity_factor : 1.25;
  const std::vector<double> popularity = parse_popularity(o.routing, m.experts, "expert");
  const std::size_t h = m.hidden, expert_params = 3 * h * m.expert_ffn;
  const std::size_t vocab = o.vocab > 0 ? static_cast<std::size_t>(o.vocab) : m.vocab;
  const auto capacity = static_cast<std::size_t>(std::ceil(static_cast<double>(tokens) / m.experts * cf * m.top_k));
  const std::size_t routed = style == "padded" ? static_cast<std::size_t>(m.experts) * capacity * h
                                               : tokens * static_cast<std::size_t>(m.top_k) * h;
  // FLOPs per token: 2 per parameter a token passes, and attention's scores.
  const double seq = o.seq_len > 0 ? o.seq_len : 4096;
  const double attention = 2.0 * m.attention_params + 4.0 * seq * h;
  const double experts_flops = 2.0 * (m.top_k + m.shared_experts) * expert_params;
  LayerList l;
  l.add({{"embed.weight", vocab * h}}, 0);
  for (int i = 0; i < dense_layers; ++i) {
    const std::string p = "dense." + std::to_string(i) + ".";
    l.add({{p + "attention.weight", m.attention_params},
           {p + "norm.weight", 2 * h},
           {p + "mlp.weight", 3 * h * m.dense_ffn}},
          attention + 2.0 * 3 * h * m.dense_ffn);
  }
  for (int i = 0; i < moe_layers; ++i) {
    const std::string p = "moe." + std::to_string(i) + ".";
    std::vector<LayerList::Param> params{{p + "attention.weight", m.attention_params},
                                         {p + "norm.weight", 2 * h},
                                         {p + "router.weight", h * static_cast<std::size_t>(m.experts)}};
    if (m.shared_experts) params.push_back({p + "shared_expert.weight", expert_params * m.shared_experts});
    l.add(std::move(params), attention + experts_flops);
  }
  l.add({{"norm.weight", h}, {"lm_head.weight", vocab * h}}, 2.0 * vocab * h);
  Workload w;
  w.name = m.name;
  w.tensors = l.backward_order();
  // Where each layer's all-to-alls fall in its pass, as a share of the pass's FLOPs.
  const double lm_head = 2.0 * vocab * h, dense = attention + 2.0 * 3 * h * m.dense_ffn;
  const double total = dense_layers * dense + moe_layers * (attention + experts_flops) + lm_head;
  for (int i = 0; i < moe_layers; ++i) {
    const std::string p = "moe." + std::to_string(i) + " ";
    const double before = dense_layers * dense + i * (attention + experts_flops);
    const double after = (moe_layers - 1 - i) * (attention + experts_flops) + lm_head;
    auto at = [&](AllToAllCall c, double flops_before) {
      c.position = flops_before / total;
      w.all_to_alls.push_back(std::move(c));
    };
    if (style == "dropless")
      at(moe_call(p + "counts", false, static_cast<std::size_t>(m.experts), DType::i64, {}), before + attention);
    at(moe_call(p + "dispatch", false, routed, DType::bf16, popularity), before + attention);
    at(moe_call(p + "combine", false, routed, DType::bf16, popularity), before + attention + experts_flops);
    at(moe_call(p + "combine (backward)", true, routed, DType::bf16, popularity), after);
    at(moe_call(p + "dispatch (backward)", true, routed, DType::bf16, popularity), after + experts_flops);
  }
  // Forward's calls, then backward's (which runs the layers in reverse), each in the order they happen.
  std::stable_sort(w.all_to_alls.begin(), w.all_to_alls.end(), [](const AllToAllCall& a, const AllToAllCall& b) {
    return std::tie(a.backward, a.position) < std::tie(b.backward, b.position);
  });
  w.description = m.title + ", " + std::to_string(moe_layers) + " MoE layer(s) of " + std::to_string(m.experts) +
                  " experts, top-" + std::to_string(m.top_k) + ", " + std::to_string(tokens) + " tokens per rank, " +
                  style + (style == "padded" ? " (capacity factor " + std::to_string(cf).substr(0, 4) + ")" : "") +
                  ", routing " + o.routing;
  return w;
}

}  // namespace collbench
