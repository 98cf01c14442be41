#pragma once
// Builds a workload the way a model is written: layers in forward order, each with
// its parameters in registration order. PyTorch's DDP buckets gradients in the
// reverse of model.parameters(), which is the order backward produces them.
#include <string>
#include <utility>
#include <vector>

#include "workloads/workload.hpp"

namespace collbench {

class LayerList {
 public:
  struct Param {
    std::string name;
    std::size_t elements = 0;
  };
  // A layer and its forward FLOPs per sample.
  void add(std::vector<Param> params, double flops);
  void add_sparse(const std::string& name, std::size_t rows, std::size_t row_elements, std::size_t lookups,
                  double flops);
  // The tensors in backward order.
  std::vector<GradientTensor> backward_order() const;

 private:
  std::vector<std::pair<std::vector<GradientTensor>, double>> layers_;
};

}  // namespace collbench
