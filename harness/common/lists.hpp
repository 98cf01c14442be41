#pragma once
// Comma-separated lists on the command line.
#include <algorithm>
#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace collbench {

inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Resolves every name of a comma-separated list with `find` (which returns an empty
// optional for a name it does not know), dropping repeats. Throws
// std::invalid_argument(unknown(name)) for an unknown name and (empty) for none.
template <class T>
std::vector<T> resolve_list(const std::string& text, const std::function<std::optional<T>(const std::string&)>& find,
                            const std::function<std::string(const std::string&)>& unknown, const std::string& empty) {
  std::vector<T> out;
  for (const std::string& item : split_list(text)) {
    const std::optional<T> v = find(item);
    if (!v) throw std::invalid_argument(unknown(item));
    if (std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
  }
  if (out.empty()) throw std::invalid_argument(empty);
  return out;
}

}  // namespace collbench
