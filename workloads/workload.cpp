#include "workloads/workload.hpp"

#include <stdexcept>

#include "workloads/workload_csv.hpp"

namespace collbench {

std::size_t Workload::parameters() const {
  std::size_t n = 0;
  for (const GradientTensor& t : tensors) n += t.elements;
  return n;
}

std::size_t Workload::bytes() const {
  std::size_t n = 0;
  for (const GradientTensor& t : tensors) n += t.bytes();
  return n;
}

std::size_t Workload::sparse_tensors() const {
  std::size_t n = 0;
  for (const GradientTensor& t : tensors) n += t.sparse;
  return n;
}

std::vector<BuiltinWorkload> builtin_workloads() {
  return {{"resnet50", "torchvision ResNet-50: 161 dense tensors, 25.6M parameters"},
          {"bert-base", "BERT-Base with pooler: 199 dense tensors, 109.5M parameters"},
          {"bert-large", "BERT-Large with pooler: 391 dense tensors, 335.1M parameters"},
          {"lm1b", "LM1B LSTM language model: 793,470-word sparse embedding and softmax, dense LSTM"},
          {"mixtral-8x7b", "Mixtral-8x7B: 32 MoE layers of 8 experts, top-2, expert-parallel all-to-alls"},
          {"deepseek-v3", "DeepSeek-V3-like: 3 dense + 58 MoE layers of 256 experts + 1 shared, top-8"},
          {"dlrm-dcnv2", "MLPerf DLRM-DCNv2: 26 model-parallel tables exchanged by alltoallv, data-parallel MLPs"}};
}

namespace {
// The file reader checks each line; this catches what knobs make of a built-in model.
Workload checked(Workload w) {
  for (const GradientTensor& t : w.tensors) {
    if (t.elements > kMaxTensorElements)
      throw std::invalid_argument("workload " + w.name + ": tensor '" + t.name + "' has " + std::to_string(t.elements) +
                                  " elements; at most " + std::to_string(kMaxTensorElements));
    if (t.lookups > kMaxLookups)
      throw std::invalid_argument("workload " + w.name + ": tensor '" + t.name + "' looks up " +
                                  std::to_string(t.lookups) + " ids per step; at most " + std::to_string(kMaxLookups) +
                                  " (lower --batch or --seq-len)");
  }
  return w;
}
}  // namespace

Workload load_workload(const std::string& name_or_path, const WorkloadOptions& options) {
  if (name_or_path == "resnet50") return resnet50_workload();
  if (name_or_path == "bert-base") return checked(bert_workload(false, options));
  if (name_or_path == "bert-large") return checked(bert_workload(true, options));
  if (name_or_path == "lm1b") return checked(lm1b_workload(options));
  if (name_or_path == "mixtral-8x7b" || name_or_path == "deepseek-v3")
    return checked(moe_workload(name_or_path, options));
  if (name_or_path == "dlrm-dcnv2") return checked(dlrm_workload(options));
  if (name_or_path.size() > 4 && name_or_path.ends_with(".csv"))
    return read_workload_csv(name_or_path);  // checked line by line
  std::string valid;
  for (const BuiltinWorkload& b : builtin_workloads()) valid += b.name + ", ";
  throw std::invalid_argument("unknown workload '" + name_or_path + "'; valid: " + valid + "or a FILE.csv");
}

}  // namespace collbench
