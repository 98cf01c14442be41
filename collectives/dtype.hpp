#pragma once
// The element types and reduction ops: sizes, names, parsing.
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "collectives/elementwise.hpp"
#include "collectives/names.hpp"

namespace collbench {

struct DTypeTraits {
  DType id;
  std::string_view name;
  std::size_t size;
  bool floating;
  int exact_integer_bits;  // bits of significand (with the implicit one); integers: 31/63
};
inline constexpr std::array<DTypeTraits, 6> kDTypeTraits{{{DType::f32, "f32", 4, true, 24},
                                                          {DType::f64, "f64", 8, true, 53},
                                                          {DType::f16, "f16", 2, true, 11},
                                                          {DType::bf16, "bf16", 2, true, 8},
                                                          {DType::i32, "i32", 4, false, 31},
                                                          {DType::i64, "i64", 8, false, 63}}};
static_assert(rows_in_enum_order<DType>(kDTypeTraits), "kDTypeTraits is indexed by DType");
inline constexpr const DTypeTraits& traits(DType t) { return kDTypeTraits[static_cast<std::size_t>(t)]; }
inline constexpr NameTable<DType, 6> kDTypeNames = name_table_of<DType>(kDTypeTraits);
inline constexpr std::array kAllDTypes = kDTypeNames.values();

inline constexpr NameTable<ReduceOp, 4> kReduceOpNames{
    {{{ReduceOp::sum, "sum"}, {ReduceOp::prod, "prod"}, {ReduceOp::min, "min"}, {ReduceOp::max, "max"}}}};
inline constexpr std::array kAllReduceOps = kReduceOpNames.values();

inline constexpr std::size_t dtype_size(DType t) { return traits(t).size; }
inline constexpr bool is_floating(DType t) { return traits(t).floating; }
inline constexpr int exact_integer_bits(DType t) { return traits(t).exact_integer_bits; }
inline constexpr std::string_view dtype_name(DType t) { return traits(t).name; }
inline constexpr std::string_view reduce_op_name(ReduceOp op) { return kReduceOpNames.name(op); }
inline constexpr std::optional<DType> parse_dtype(std::string_view name) { return kDTypeNames.parse(name); }
inline constexpr std::optional<ReduceOp> parse_reduce_op(std::string_view name) { return kReduceOpNames.parse(name); }

}  // namespace collbench
