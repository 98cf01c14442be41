#include "workloads/layer_list.hpp"

namespace collbench {

void LayerList::add(std::vector<Param> params, double flops) {
  std::vector<GradientTensor> tensors;
  for (Param& p : params) {
    GradientTensor t;
    t.name = std::move(p.name);
    t.elements = p.elements;
    tensors.push_back(std::move(t));
  }
  layers_.emplace_back(std::move(tensors), flops);
}

void LayerList::add_sparse(const std::string& name, std::size_t rows, std::size_t row_elements, std::size_t lookups,
                           double flops) {
  GradientTensor t;
  t.name = name;
  t.elements = rows * row_elements;
  t.sparse = true;
  t.rows = rows;
  t.row_elements = row_elements;
  t.lookups = lookups;
  layers_.push_back({{t}, flops});
}

std::vector<GradientTensor> LayerList::backward_order() const {
  std::vector<GradientTensor> out;
  for (auto layer = layers_.rbegin(); layer != layers_.rend(); ++layer) {
    bool first = true;
    for (auto t = layer->first.rbegin(); t != layer->first.rend(); ++t) {
      out.push_back(*t);
      out.back().flops = first ? layer->second : 0;
      first = false;
    }
  }
  return out;
}

}  // namespace collbench
