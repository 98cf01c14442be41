#include "collectives/transport/mpi/datatypes.hpp"

#include <array>

#include "collectives/kernels/reduce_kernels.hpp"

namespace collbench {

namespace {
// Types and ops are made on first use and freed at MPI_Finalize, which deletes
// MPI_COMM_SELF's attributes first (MPI standard, "Allowing User Functions at Process Termination").
std::array<MPI_Datatype, 2> half_types{MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
std::array<MPI_Op, 8> half_ops{MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL,
                               MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};

int free_at_finalize(MPI_Comm, int, void*, void*) {
  for (MPI_Datatype& t : half_types)
    if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  for (MPI_Op& op : half_ops)
    if (op != MPI_OP_NULL) MPI_Op_free(&op);
  return MPI_SUCCESS;
}

void register_cleanup_once() {
  static const bool done = [] {
    int key = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_at_finalize, &key, nullptr);
    MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
    return true;
  }();
  (void)done;
}

MPI_Datatype half_type(DType t) {
  MPI_Datatype& slot = half_types[t == DType::f16 ? 0 : 1];
  if (slot == MPI_DATATYPE_NULL) {
    register_cleanup_once();
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
  static constexpr std::array<MPI_User_function*, 4> fns{&user_op<T, ReduceOp::sum>, &user_op<T, ReduceOp::prod>,
                                                         &user_op<T, ReduceOp::min>, &user_op<T, ReduceOp::max>};
  const auto i = static_cast<std::size_t>(op);
  MPI_Op& slot = half_ops[(T == DType::f16 ? 0 : 4) + i];
  if (slot == MPI_OP_NULL) {
    register_cleanup_once();
    MPI_Op_create(fns[i], /*commute=*/1, &slot);
  }
  return slot;
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
