#pragma once
// Comma-separated lists on the command line, and "a, b, c" in messages.
#include <sstream>
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

template <class Range, class Name>
std::string join_names(const Range& items, Name name) {
  std::string out;
  for (const auto& x : items) out += (out.empty() ? "" : ", ") + std::string(name(x));
  return out;
}

}  // namespace collbench
