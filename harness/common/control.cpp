#include "harness/common/control.hpp"

#include <chrono>
#include <cstring>
#include <thread>

#include "collectives/process/progress.hpp"
#include "harness/common/run_error.hpp"

namespace collbench {
int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
int size_of(MPI_Comm comm) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  return n;
}

namespace {

constexpr int kTag = 31337;

// `rank` of `comm` as MPI_COMM_WORLD numbers it (the watchdog names ranks that way).
int world_rank(int rank, MPI_Comm comm) {
  int same = MPI_UNEQUAL;
  MPI_Comm_compare(comm, MPI_COMM_WORLD, &same);
  if (same == MPI_IDENT || same == MPI_CONGRUENT) return rank;
  MPI_Group group, world;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int out = -1;
  MPI_Group_translate_ranks(group, 1, &rank, world, &out);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  return out;
}

// Blocking receives that tell the watchdog whom they wait for: a rank stopped before
// its first call is named by the ranks waiting on it.
void receive(void* data, int count, MPI_Datatype type, int from, MPI_Comm comm) {
  progress::set_waiting_for(world_rank(from, comm));
  MPI_Recv(data, count, type, from, kTag, comm, MPI_STATUS_IGNORE);
  progress::set_waiting_for(-1);
}

template <class T>
void allreduce(std::vector<T>& values, const std::function<T(T, T)>& combine, MPI_Datatype type, MPI_Comm comm) {
  const int rank = rank_of(comm), n = size_of(comm), len = static_cast<int>(values.size());
  if (rank != 0) {
    MPI_Send(values.data(), len, type, 0, kTag, comm);
    receive(values.data(), len, type, 0, comm);
    return;
  }
  std::vector<T> other(values.size());
  for (int r = 1; r < n; ++r) {
    receive(other.data(), len, type, r, comm);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = combine(values[i], other[i]);
  }
  for (int r = 1; r < n; ++r) MPI_Send(values.data(), len, type, r, kTag, comm);
}

std::string receive_string(int from, MPI_Comm comm) {
  MPI_Status st;
  progress::set_waiting_for(world_rank(from, comm));
  MPI_Probe(from, kTag, comm, &st);
  progress::set_waiting_for(-1);
  int len = 0;
  MPI_Get_count(&st, MPI_CHAR, &len);
  std::string s(static_cast<std::size_t>(len), '\0');
  MPI_Recv(s.data(), len, MPI_CHAR, from, kTag, comm, MPI_STATUS_IGNORE);
  return s;
}

void send_string(const std::string& s, int to, MPI_Comm comm) {
  MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, to, kTag, comm);
}

}  // namespace

void control_allreduce(std::vector<double>& values, const std::function<double(double, double)>& combine,
                       MPI_Comm comm) {
  allreduce(values, combine, MPI_DOUBLE, comm);
}

void control_allreduce(std::vector<long long>& values, const std::function<long long(long long, long long)>& combine,
                       MPI_Comm comm) {
  allreduce(values, combine, MPI_LONG_LONG, comm);
}

std::int64_t control_sum(std::int64_t mine, MPI_Comm comm) {
  std::vector<long long> v{mine};
  control_allreduce(
      v, [](long long a, long long b) { return a + b; }, comm);
  return v[0];
}

std::int64_t control_sum_sleeping(std::int64_t mine, MPI_Comm comm) {
  const int rank = rank_of(comm), n = size_of(comm);
  long long value = mine;
  if (rank == 0) {
    for (int r = 1; r < n; ++r) {
      long long other = 0;
      receive(&other, 1, MPI_LONG_LONG, r, comm);
      value += other;
    }
    for (int r = 1; r < n; ++r) MPI_Send(&value, 1, MPI_LONG_LONG, r, kTag, comm);
    return value;
  }
  MPI_Request requests[2];
  MPI_Isend(&mine, 1, MPI_LONG_LONG, 0, kTag, comm, &requests[0]);
  MPI_Irecv(&value, 1, MPI_LONG_LONG, 0, kTag, comm, &requests[1]);
  for (int done = 0;;) {
    MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);
    if (done) return value;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    progress::beat();  // waiting, as asked: the watchdog judges the ranks that work
  }
}

void throw_if_any_rank_failed(const std::string& error, MPI_Comm comm) {
  for (const std::string& e : control_allgather(error, comm))
    if (!e.empty()) throw RunError(e);
}

void control_broadcast(std::string& bytes, int root, MPI_Comm comm) {
  const int rank = rank_of(comm), n = size_of(comm);
  if (rank == root) {
    for (int r = 0; r < n; ++r)
      if (r != root) send_string(bytes, r, comm);
  } else {
    bytes = receive_string(root, comm);
  }
}

std::vector<std::string> control_allgather(const std::string& mine, MPI_Comm comm) {
  const int rank = rank_of(comm), n = size_of(comm);
  std::vector<std::string> all(static_cast<std::size_t>(n));
  all[static_cast<std::size_t>(rank)] = mine;
  if (rank != 0) {
    send_string(mine, 0, comm);
  } else {
    for (int r = 1; r < n; ++r) all[static_cast<std::size_t>(r)] = receive_string(r, comm);
  }
  // Rank 0 sends the joined list with lengths, so names may contain anything.
  std::string joined;
  if (rank == 0)
    for (const std::string& s : all) joined += std::to_string(s.size()) + ":" + s;
  control_broadcast(joined, 0, comm);
  std::size_t at = 0;
  for (int r = 0; r < n; ++r) {
    const std::size_t colon = joined.find(':', at);
    const std::size_t len = std::stoul(joined.substr(at, colon - at));
    all[static_cast<std::size_t>(r)] = joined.substr(colon + 1, len);
    at = colon + 1 + len;
  }
  return all;
}

std::string doubles_to_bytes(const std::vector<double>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
}

std::vector<double> bytes_to_doubles(const std::string& bytes) {
  std::vector<double> values(bytes.size() / sizeof(double));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(double));
  return values;
}

}  // namespace collbench
