#include "collectives/transport/mpi/mpi_names.hpp"

namespace collbench {
namespace {

constexpr std::array<MpiCollectiveNames, kAllCollectives.size()> kMpiNames{{
    {.id = Collective::allreduce,
     .function = "MPI_Allreduce",
     .mpich_algorithm_cvar = "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM",
     .mpich_algorithms = "recursive_doubling reduce_scatter_allgather smp nb",
     .open_mpi_name = "allreduce"},
    {.id = Collective::broadcast,
     .function = "MPI_Bcast",
     .mpich_algorithm_cvar = "MPIR_CVAR_BCAST_INTRA_ALGORITHM",
     .mpich_algorithms = "binomial scatter_recursive_doubling_allgather scatter_ring_allgather smp nb",
     .open_mpi_name = "bcast"},
    {.id = Collective::reduce,
     .function = "MPI_Reduce",
     .mpich_algorithm_cvar = "MPIR_CVAR_REDUCE_INTRA_ALGORITHM",
     .mpich_algorithms = "binomial reduce_scatter_gather smp nb",
     .open_mpi_name = "reduce"},
    {.id = Collective::gather,
     .function = "MPI_Gather",
     .mpich_algorithm_cvar = "MPIR_CVAR_GATHER_INTRA_ALGORITHM",
     .mpich_algorithms = "binomial nb",
     .open_mpi_name = "gather"},
    {.id = Collective::allgather,
     .function = "MPI_Allgather",
     .mpich_algorithm_cvar = "MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM",
     .mpich_algorithms = "brucks recursive_doubling ring nb",
     .open_mpi_name = "allgather"},
    {.id = Collective::reduce_scatter,
     .function = "MPI_Reduce_scatter_block",
     .mpich_algorithm_cvar = "MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM",
     .mpich_algorithms = "noncommutative recursive_doubling pairwise recursive_halving nb",
     .open_mpi_name = "reduce_scatter_block"},
    // pairwise_sendrecv_replace serves only in-place calls.
    {.id = Collective::alltoall,
     .function = "MPI_Alltoall",
     .mpich_algorithm_cvar = "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM",
     .mpich_algorithms = "brucks pairwise pairwise_sendrecv_replace scattered nb",
     .open_mpi_name = "alltoall"},
    {.id = Collective::alltoallv,
     .function = "MPI_Alltoallv",
     .mpich_algorithm_cvar = "MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM",
     .mpich_algorithms = "pairwise_sendrecv_replace scattered nb",
     .open_mpi_name = "alltoallv"},
}};

static_assert(rows_in_enum_order<Collective>(kMpiNames), "kMpiNames is indexed by Collective");

}  // namespace

const MpiCollectiveNames& mpi_names(Collective c) { return kMpiNames[static_cast<std::size_t>(c)]; }

}  // namespace collbench
