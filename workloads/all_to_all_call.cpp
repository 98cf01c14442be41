#include "workloads/all_to_all_call.hpp"

#include <stdexcept>

#include "workloads/traffic.hpp"

namespace collbench {

SharedCounts all_to_all_counts(const AllToAllCall& call, int nranks) {
  const auto n = static_cast<std::size_t>(nranks);
  TrafficPattern p{call.name, std::vector<double>(n * n, 1.0), nranks};
  if (!call.item_weights.empty()) {
    const std::size_t items = call.item_weights.size();
    if (items < n || (call.items_must_divide && items % n))
      throw std::invalid_argument(call.name + ": " + std::to_string(items) + " " + call.items + " cannot be spread " +
                                  (call.items_must_divide ? "evenly " : "") + "over " + std::to_string(nranks) +
                                  " ranks" +
                                  (call.items_must_divide ? " (choose a rank count that divides them)" : ""));
    std::vector<double> per_rank(n, 0.0);
    for (std::size_t k = 0; k < items; ++k) per_rank[k * n / items] += call.item_weights[k];
    for (std::size_t from = 0; from < n; ++from)
      for (std::size_t to = 0; to < n; ++to) p.weights[from * n + to] = per_rank[call.items_on_sender ? from : to];
  }
  return scaled_counts(p, call.elements_per_rank * n);
}

}  // namespace collbench
