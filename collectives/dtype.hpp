#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace collbench {

enum class DType { f32, f64, f16, bf16, i32, i64 };
inline constexpr std::array kAllDTypes{DType::f32, DType::f64, DType::f16,
                                       DType::bf16, DType::i32, DType::i64};

enum class ReduceOp { sum, prod, min, max };
inline constexpr std::array kAllReduceOps{ReduceOp::sum, ReduceOp::prod, ReduceOp::min,
                                          ReduceOp::max};

std::size_t dtype_size(DType t);
std::string_view dtype_name(DType t);
std::string_view reduce_op_name(ReduceOp op);
std::optional<DType> parse_dtype(std::string_view name);
std::optional<ReduceOp> parse_reduce_op(std::string_view name);
bool is_floating(DType t);
// Bits of significand (including the implicit one) for floating types; integers: 63/31.
int exact_integer_bits(DType t);

}  // namespace collbench
