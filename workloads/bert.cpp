// Hugging Face BertModel (embeddings, encoder, pooler; no pre-training heads).
#include <string>

#include "workloads/layer_list.hpp"

namespace collbench {

Workload bert_workload(bool large, const WorkloadOptions& options) {
  const std::size_t hidden = large ? 1024 : 768, layers = large ? 24 : 12, inter = 4 * hidden;
  const std::size_t vocab = 30522, positions = 512, types = 2;
  const double seq = options.seq_len > 0 ? options.seq_len : 128;  // pre-training phase 1
  const double h = static_cast<double>(hidden);
  auto linear = [](const std::string& name, std::size_t in, std::size_t out) {
    return std::vector<LayerList::Param>{{name + ".weight", in * out}, {name + ".bias", out}};
  };
  auto layer_norm = [&](const std::string& name) {
    return std::vector<LayerList::Param>{{name + ".weight", hidden}, {name + ".bias", hidden}};
  };
  // FLOPs per sequence: a linear layer costs 2*in*out per token.
  auto per_token = [&](double f) { return f * seq; };
  LayerList l;
  l.add({{"embeddings.word_embeddings.weight", vocab * hidden}}, 0);
  l.add({{"embeddings.position_embeddings.weight", positions * hidden}}, 0);
  l.add({{"embeddings.token_type_embeddings.weight", types * hidden}}, per_token(2 * h));  // the sums
  l.add(layer_norm("embeddings.LayerNorm"), per_token(5 * h));
  for (std::size_t i = 0; i < layers; ++i) {
    const std::string p = "encoder.layer." + std::to_string(i) + ".";
    l.add(linear(p + "attention.self.query", hidden, hidden), per_token(2 * h * h));
    l.add(linear(p + "attention.self.key", hidden, hidden), per_token(2 * h * h));
    // Backward reaches the attention core (scores and context, 2 * 2*seq*hidden per
    // token) just before the value projection: count it there.
    l.add(linear(p + "attention.self.value", hidden, hidden), per_token(2 * h * h + 4 * seq * h));
    l.add(linear(p + "attention.output.dense", hidden, hidden), per_token(2 * h * h));
    l.add(layer_norm(p + "attention.output.LayerNorm"), per_token(5 * h));
    l.add(linear(p + "intermediate.dense", hidden, inter), per_token(2 * h * inter));
    l.add(linear(p + "output.dense", inter, hidden), per_token(2 * h * inter));
    l.add(layer_norm(p + "output.LayerNorm"), per_token(5 * h));
  }
  l.add(linear("pooler.dense", hidden, hidden), 2 * h * h);  // the first token only
  Workload w;
  w.name = large ? "bert-large" : "bert-base";
  w.description = std::string("BERT-") + (large ? "Large" : "Base") + " (BertModel with pooler), sequence length " +
                  std::to_string(static_cast<int>(seq));
  w.tensors = l.backward_order();
  return w;
}

}  // namespace collbench
