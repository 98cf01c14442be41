#pragma once
// One name table per enum: the names users type and read, the parser, and the
// "valid: ..." list that error messages give, all from the same rows.
#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace collbench {

// name(x) of every item, in order, between separators: "a, b, c".
template <class Range, class Name>
std::string join(const Range& items, Name name, std::string_view separator = ", ") {
  std::string out;
  for (const auto& x : items) {
    if (!out.empty()) out += separator;
    out += name(x);
  }
  return out;
}

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
    return join(rows, [](const auto& row) { return row.second; });
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

// Traits tables are indexed by their enum: row i describes the enum value i.
template <class E, class Row, std::size_t N>
constexpr bool rows_in_enum_order(const std::array<Row, N>& rows) {
  for (std::size_t i = 0; i < N; ++i)
    if (rows[i].id != static_cast<E>(i)) return false;
  return true;
}

// The name table of a traits table whose rows have `id` and `name`.
template <class E, class Row, std::size_t N>
constexpr NameTable<E, N> name_table_of(const std::array<Row, N>& rows) {
  NameTable<E, N> t{};
  for (std::size_t i = 0; i < N; ++i) t.rows[i] = {rows[i].id, rows[i].name};
  return t;
}

}  // namespace collbench
