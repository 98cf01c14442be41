#include "algorithms/parameter_server/plan.hpp"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "collectives/process/fnv1a.hpp"

namespace collbench {

PsRoles ps_roles(int nranks, int servers) {
  if (servers < 1 || servers >= nranks)
    throw std::invalid_argument("--servers " + std::to_string(servers) + " is invalid for " + std::to_string(nranks) +
                                " rank(s): the parameter server needs at least one server and one worker "
                                "(valid: 1.." +
                                std::to_string(nranks - 1) + ")");
  return {nranks, servers};
}

namespace {
int hashed_server(const std::string& tensor, std::size_t partition, int servers) {
  char index[8];  // little-endian, whatever the machine's order
  for (int i = 0; i < 8; ++i) index[i] = static_cast<char>(partition >> (8 * i));
  const std::uint64_t h = fnv1a(std::string_view(index, 8), fnv1a(tensor));
  return static_cast<int>(h % static_cast<std::uint64_t>(servers));
}
}  // namespace

PsPlan make_ps_plan(const PsConfig& config, int servers) {
  if (servers < 1) throw std::invalid_argument("the parameter server needs at least one server");
  if (config.tensors.empty()) throw std::invalid_argument("the parameter server model has no tensors");
  if (config.partition_bytes == 0) throw std::invalid_argument("--partition-size must be at least one byte");
  const std::size_t elem = dtype_size(config.dtype);
  PsPlan plan;
  plan.server_bytes.assign(static_cast<std::size_t>(servers), 0);
  plan.dense_partitions.resize(static_cast<std::size_t>(servers));
  std::size_t dealt = 0;
  for (std::size_t t = 0; t < config.tensors.size(); ++t) {
    const PsTensor& tensor = config.tensors[t];
    if (tensor.rows == 0 || tensor.row_elements == 0)
      throw std::invalid_argument("parameter server tensor '" + tensor.name + "' is empty");
    const std::size_t row_bytes = tensor.row_elements * elem;
    const std::size_t per = std::max<std::size_t>(1, config.partition_bytes / row_bytes);
    plan.first_partition.push_back(plan.partitions.size());
    plan.rows_per_partition.push_back(per);
    if (tensor.sparse) plan.sparse_tensors.push_back(t);
    for (std::size_t first = 0, k = 0; first < tensor.rows; first += per, ++k) {
      PsPartition p{t, first, std::min(per, tensor.rows - first), 0, tensor.row_elements};
      p.server = config.assignment == PsAssignment::hash
                     ? hashed_server(tensor.name, k, servers)
                     : static_cast<int>(dealt++ % static_cast<std::size_t>(servers));
      plan.server_bytes[static_cast<std::size_t>(p.server)] += p.rows * row_bytes;
      if (!tensor.sparse) plan.dense_partitions[static_cast<std::size_t>(p.server)].push_back(plan.partitions.size());
      plan.partitions.push_back(p);
    }
  }
  plan.first_partition.push_back(plan.partitions.size());
  return plan;
}

std::size_t PsPlan::partition_of(std::size_t t, std::size_t row) const {
  return first_partition[t] + row / rows_per_partition[t];
}

double PsPlan::imbalance() const {
  const double total = static_cast<double>(std::accumulate(server_bytes.begin(), server_bytes.end(), std::size_t{0}));
  if (total == 0) return 1;
  const double mean = total / static_cast<double>(server_bytes.size());
  return static_cast<double>(*std::max_element(server_bytes.begin(), server_bytes.end())) / mean;
}

std::string ps_definition(const PsConfig& c, int servers) {
  std::ostringstream s;
  s << "mode=" << kPsModeNames.name(c.mode) << " staleness=" << c.staleness << " lr=" << c.learning_rate
    << " dtype=" << dtype_name(c.dtype) << " partition=" << c.partition_bytes
    << " assignment=" << kPsAssignmentNames.name(c.assignment) << " servers=" << servers << " tensors=";
  for (const PsTensor& t : c.tensors)
    s << "[" << t.name << " " << t.rows << "x" << t.row_elements << (t.sparse ? " sparse" : " dense") << "]";
  return s.str();
}

bool ps_pull_may_proceed(PsMode mode, int staleness, std::int64_t worker_clock, std::int64_t slowest_clock,
                         std::int64_t applied_steps) {
  switch (mode) {
    case PsMode::sync: return applied_steps >= worker_clock;
    case PsMode::async: return true;
    case PsMode::bounded: return worker_clock - slowest_clock <= staleness;
  }
  return false;
}

std::int64_t ps_pull_staleness(std::int64_t worker_clock, std::int64_t slowest_clock) {
  return std::max<std::int64_t>(0, worker_clock - slowest_clock);
}

void require_ps_dtype(DType t) {
  if (t != DType::f32 && t != DType::f64)
    throw std::invalid_argument("the parameter server supports dtype f32 and f64, not " + std::string(dtype_name(t)));
}

namespace {
template <class T>
void fill_initial(T* out, std::size_t tensor, std::size_t first, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<T>(static_cast<int>((tensor * 7 + first + i) % 13) - 6);
}

template <class T>
void sgd(T* p, const T* g, std::size_t n, T lr) {
  for (std::size_t i = 0; i < n; ++i) p[i] = p[i] - lr * g[i];
}
}  // namespace

void ps_initial_params(DType t, std::size_t tensor, std::size_t first_element, std::size_t count, void* out) {
  require_ps_dtype(t);
  if (t == DType::f32)
    fill_initial(static_cast<float*>(out), tensor, first_element, count);
  else
    fill_initial(static_cast<double*>(out), tensor, first_element, count);
}

void sgd_update(DType t, void* params, const void* gradient, std::size_t count, double learning_rate) {
  require_ps_dtype(t);
  if (t == DType::f32)
    sgd(static_cast<float*>(params), static_cast<const float*>(gradient), count, static_cast<float>(learning_rate));
  else
    sgd(static_cast<double*>(params), static_cast<const double*>(gradient), count, learning_rate);
}

std::string sparse_indices_problem(const std::vector<std::uint64_t>& rows, std::size_t table_rows) {
  std::vector<std::uint64_t> sorted = rows;
  std::sort(sorted.begin(), sorted.end());
  if (!sorted.empty() && sorted.back() >= table_rows)
    return "sparse row index " + std::to_string(sorted.back()) + " is out of range for a table of " +
           std::to_string(table_rows) + " rows";
  if (auto d = std::adjacent_find(sorted.begin(), sorted.end()); d != sorted.end())
    return "sparse row index " + std::to_string(*d) + " appears more than once in one push";
  return {};
}

}  // namespace collbench
