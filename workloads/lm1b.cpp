// A large-vocabulary LSTM language model as trained on LM1B (Jozefowicz et al. 2016,
// "LSTM-2048-512"; the model Parallax and others use): 793,470-word vocabulary,
// 512-wide embedding, one LSTM layer of 2048 cells projected to 512, and a sampled
// softmax over 8192 candidates. Embedding and softmax gradients are sparse.
#include <string>

#include "workloads/layer_list.hpp"

namespace collbench {

Workload lm1b_workload(const WorkloadOptions& options) {
  const std::size_t vocab = 793470, emb = 512, cells = 2048, samples = 8192;
  const std::size_t batch = options.batch > 0 ? options.batch : 128;
  const std::size_t steps = options.seq_len > 0 ? options.seq_len : 20;
  const double tokens = static_cast<double>(batch * steps);
  const double e = emb, c = cells;
  LayerList l;
  l.add_sparse("embedding.weight", vocab, emb, batch * steps, tokens * e);  // the lookups' copies
  // Gates of input and projected state: 4*cells x (emb + emb).
  l.add({{"lstm.weight", 4 * cells * (emb + emb)}, {"lstm.bias", 4 * cells}},
        tokens * (2 * 4 * c * (e + e) + 10 * 4 * c));
  l.add({{"lstm.projection", cells * emb}}, tokens * 2 * c * e);
  // Sampled softmax: the batch's targets and the step's shared candidates (drawn, like
  // TensorFlow's log-uniform sampler, with word frequency).
  // The bias goes first so that backward order puts it right after the weight, both
  // made ready by the same layer.
  l.add_sparse("softmax.bias", vocab, 1, batch * steps + samples, 0);
  l.add_sparse("softmax.weight", vocab, emb, batch * steps + samples, tokens * 2 * e * (samples + 1));
  Workload w;
  w.name = "lm1b";
  w.description = "LM1B LSTM-2048-512 language model, batch " + std::to_string(batch) + " x " + std::to_string(steps) +
                  " steps, sampled softmax of " + std::to_string(samples);
  w.tensors = l.backward_order();
  w.zipf_exponent = options.zipf > 0 ? options.zipf : 1.0;
  return w;
}

}  // namespace collbench
