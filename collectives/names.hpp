#pragma once
// One name table per enum: the names users type and read, the parser, and the
// "valid: ..." list that error messages give, all from the same rows.
#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace collbench {

// Written as NameTable<E, N>{{{{E::a, "a"}, {E::b, "b"}}}}.
template <class E, std::size_t N>
struct NameTable {
  std::array<std::pair<E, std::string_view>, N> rows;

  constexpr std::string_view name(E e) const {
    for (const auto& [value, text] : rows)
      if (value == e) return text;
    return "?";
  }
  constexpr std::optional<E> parse(std::string_view text) const {
    for (const auto& [value, name] : rows)
      if (name == text) return value;
    return std::nullopt;
  }
  // "a, b, c": every name, in table order.
  std::string valid() const {
    std::string out;
    for (const auto& [value, text] : rows) out += (out.empty() ? "" : ", ") + std::string(text);
    return out;
  }
  // Throws std::invalid_argument("unknown WHAT 'TEXT'; valid: ...").
  E parse_or_throw(std::string_view text, std::string_view what) const {
    if (auto e = parse(text)) return *e;
    throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(text) + "'; valid: " + valid());
  }
  constexpr std::array<E, N> values() const {
    std::array<E, N> out{};
    for (std::size_t i = 0; i < N; ++i) out[i] = rows[i].first;
    return out;
  }
};

}  // namespace collbench
