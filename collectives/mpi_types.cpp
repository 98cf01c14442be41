#include "mpi_types.hpp"

#include <array>

#include "reduce_kernels.hpp"

namespace collbench {

namespace {
MPI_Datatype half_type(DType t) {
  static MPI_Datatype f16 = MPI_DATATYPE_NULL, bf16 = MPI_DATATYPE_NULL;
  MPI_Datatype& slot = t == DType::f16 ? f16 : bf16;
  if (slot == MPI_DATATYPE_NULL) {
    MPI_Type_contiguous(2, MPI_BYTE, &slot);
    MPI_Type_commit(&slot);
  }
  return slot;
}

template <DType T, ReduceOp Op>
void user_op(void* in, void* inout, int* len, MPI_Datatype*) {
  reduce(T, Op, inout, in, inout, static_cast<std::size_t>(*len));
}

template <DType T>
MPI_Op half_op(ReduceOp op) {
  static std::array<MPI_Op, 4> ops{MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
  static constexpr std::array<MPI_User_function*, 4> fns{
      &user_op<T, ReduceOp::sum>, &user_op<T, ReduceOp::prod>, &user_op<T, ReduceOp::min>,
      &user_op<T, ReduceOp::max>};
  const auto i = static_cast<std::size_t>(op);
  if (ops[i] == MPI_OP_NULL) MPI_Op_create(fns[i], /*commute=*/1, &ops[i]);
  return ops[i];
}
}  // namespace

bool mpi_uses_user_op(DType t) { return t == DType::f16 || t == DType::bf16; }

MPI_Datatype mpi_datatype(DType t) {
  switch (t) {
    case DType::f32: return MPI_FLOAT;
    case DType::f64: return MPI_DOUBLE;
    case DType::i32: return MPI_INT32_T;
    case DType::i64: return MPI_INT64_T;
    case DType::f16:
    case DType::bf16: return half_type(t);
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(DType t, ReduceOp op) {
  if (t == DType::f16) return half_op<DType::f16>(op);
  if (t == DType::bf16) return half_op<DType::bf16>(op);
  switch (op) {
    case ReduceOp::sum: return MPI_SUM;
    case ReduceOp::prod: return MPI_PROD;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
  }
  return MPI_OP_NULL;
}

}  // namespace collbench
