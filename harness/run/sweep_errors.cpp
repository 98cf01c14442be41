#include "harness/run/sweep_errors.hpp"

#include <algorithm>
#include <functional>

#include "collectives/names.hpp"

namespace collbench {

std::string SweepErrors::blame(std::string_view library_call) const {
  std::vector<std::string> library, reference;
  std::int64_t library_wrong = 0, reference_wrong = 0;
  for (const auto& a : algorithms) {
    if (a.wrong <= 0) continue;
    (a.library ? library : reference).push_back(a.name);
    (a.library ? library_wrong : reference_wrong) += a.wrong;
  }
  const bool any_reference_ran =
      std::any_of(algorithms.begin(), algorithms.end(), [](const auto& a) { return !a.library; });
  const bool library_ran = std::any_of(algorithms.begin(), algorithms.end(), [](const auto& a) { return a.library; });
  std::string out;
  if (!library.empty()) {
    out = "the MPI library returned wrong results: " + std::to_string(library_wrong) + " wrong element(s) from " +
          std::string(library_call) + " (" + join(library, std::identity{}) + " rows)";
    if (reference.empty() && any_reference_ran)
      out += "; every reference algorithm, which uses only MPI point-to-point, was right";
  }
  if (!reference.empty()) {
    if (!out.empty()) out += "; and ";
    out += std::to_string(reference_wrong) + " wrong element(s) from " + join(reference, std::identity{});
    if (library_ran && library.empty()) out += ", while " + std::string(library_call) + " was right on the same inputs";
    if (reference.size() > 1 &&
        std::none_of(algorithms.begin(), algorithms.end(), [](const auto& a) { return !a.library && a.wrong == 0; }))
      out += " (every reference algorithm: suspect MPI point-to-point, their transport)";
  }
  return out;
}

std::int64_t SweepErrors::total() const {
  std::int64_t t = 0;
  for (const auto& a : algorithms) t += std::max<std::int64_t>(a.wrong, 0);
  return t;
}

}  // namespace collbench
