#pragma once
// The parameter server's static layout: which ranks serve, how tensors are cut into
// partitions, which server owns each partition, and the rules a server applies.
// Pure code: the protocol (protocol.hpp) and the unit tests share it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/dtype.hpp"
#include "collectives/names.hpp"

namespace collbench {

enum class PsMode { sync, async, bounded };
inline constexpr NameTable<PsMode, 3> kPsModeNames{
    {{{PsMode::sync, "sync"}, {PsMode::async, "async"}, {PsMode::bounded, "bounded"}}}};

// Round-robin deals partitions to servers in order (even by count); hash places each
// by a hash of (tensor, partition), as BytePS does by default, so imbalance can show.
enum class PsAssignment { round_robin, hash };
inline constexpr NameTable<PsAssignment, 2> kPsAssignmentNames{
    {{{PsAssignment::round_robin, "round-robin"}, {PsAssignment::hash, "hash"}}}};

// A tensor is a table of rows. Dense tensors travel whole (rows of one element);
// sparse tensors (embedding tables) travel as the rows a step touches.
struct PsTensor {
  std::string name;
  std::size_t rows = 0;
  std::size_t row_elements = 1;
  bool sparse = false;
  std::size_t elements() const { return rows * row_elements; }
};

struct PsConfig {
  PsMode mode = PsMode::sync;
  int staleness = 0;  // bounded: how many steps a worker may run ahead of the slowest
  double learning_rate = 0.01;
  DType dtype = DType::f32;
  std::size_t partition_bytes = 4096000;  // BytePS's default partition
  PsAssignment assignment = PsAssignment::round_robin;
  std::vector<PsTensor> tensors;
};

// Servers are the last `servers` ranks, so rank 0 (which reports) is always a worker
// and the workers are ranks 0..W-1.
struct PsRoles {
  int nranks = 0, servers = 0;
  int workers() const { return nranks - servers; }
  bool is_server(int rank) const { return rank >= workers(); }
  int server_rank(int server) const { return workers() + server; }
  int server_index(int rank) const { return rank - workers(); }
};
// Throws std::invalid_argument unless 1 <= servers < nranks.
PsRoles ps_roles(int nranks, int servers);

struct PsPartition {
  std::size_t tensor = 0;
  std::size_t first_row = 0, rows = 0;
  int server = 0;                // index among the servers, 0..S-1
  std::size_t row_elements = 1;  // the tensor's
  std::size_t elements() const { return rows * row_elements; }
};

struct PsPlan {
  std::vector<PsPartition> partitions;                     // tensor by tensor, rows in order
  std::vector<std::size_t> first_partition;                // per tensor, plus one past the end
  std::vector<std::size_t> rows_per_partition;             // per tensor
  std::vector<std::size_t> server_bytes;                   // parameter bytes each server owns
  std::vector<std::vector<std::size_t>> dense_partitions;  // per server: its dense tensors' partitions, in order
  std::vector<std::size_t> sparse_tensors;                 // the tensors that travel as rows
  // The partition of `row` of tensor `t` (row must be in range).
  std::size_t partition_of(std::size_t t, std::size_t row) const;
  double imbalance() const;  // largest server's bytes over the mean (1: even)
};
// Throws std::invalid_argument for an empty model, an element size the partition
// cannot hold, or a tensor without rows.
PsPlan make_ps_plan(const PsConfig& config, int servers);

// Everything that must agree between ranks, as text: servers compare it at start-up.
std::string ps_definition(const PsConfig& config, int servers);

// Whether a pull from a worker that has pushed `worker_clock` steps may be answered.
// `slowest_clock` is the fewest steps any worker has pushed; `applied_steps` is how
// many whole steps a sync server has applied.
bool ps_pull_may_proceed(PsMode mode, int staleness, std::int64_t worker_clock, std::int64_t slowest_clock,
                         std::int64_t applied_steps);
// How many steps of other workers' updates a pull answered now may be missing.
std::int64_t ps_pull_staleness(std::int64_t worker_clock, std::int64_t slowest_clock);

// params -= learning_rate * gradient, element-wise (f32 and f64). One function for the
// server and for the check, so that both round identically.
void sgd_update(DType t, void* params, const void* gradient, std::size_t count, double learning_rate);
// The parameters a run starts from: small integers, so checked sums stay exact.
void ps_initial_params(DType t, std::size_t tensor, std::size_t first_element, std::size_t count, void* out);
// Throws std::invalid_argument unless the parameter server supports `t`.
void require_ps_dtype(DType t);

// Checks a sparse step's row indices: in range and without duplicates. Returns the
// problem, or empty.
std::string sparse_indices_problem(const std::vector<std::uint64_t>& rows, std::size_t table_rows);

}  // namespace collbench
