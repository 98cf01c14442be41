// The parameter server over MPI at whatever rank count mpiexec gives (2 to 5 in ctest):
// sync equals MPI_Allreduce + SGD exactly after every step, async applies every push
// once, bounded staleness is never exceeded (checked from the pulled values themselves),
// and every error reaches every rank without a hang.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <functional>
#include <thread>

#include "algorithms/parameter_server/protocol.hpp"
#include "collectives/transport/mpi/transport.hpp"
#include "harness/common/validation.hpp"
#include "tests/mpi/oversubscribed.hpp"

using namespace collbench;

namespace {

int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

struct PsSession {
  std::string error;        // this rank's
  std::int64_t pushes = 0;  // sent (workers) or received (servers), summed over ranks
  std::int64_t pushes_received = 0;
  std::int64_t max_staleness = 0;  // reported to workers, over ranks
};

// Runs a session: servers serve, workers call `drive(worker, rank)`. `check_final`
// sees a server's final partitions.
PsSession run_session(MpiTransport& tr, const PsConfig& config, PsRoles roles,
                      const std::function<void(PsWorker&, int)>& drive, const PsFinalParams& check_final = {}) {
  PsSession s;
  long long counts[3] = {0, 0, 0};
  if (roles.is_server(tr.rank())) {
    const PsServerReport r = run_ps_server(tr, config, roles, check_final);
    s.error = r.error;
    counts[1] = r.pushes_received;
  } else {
    PsWorker w(tr, config, roles);
    drive(w, tr.rank());
    const PsWorkerReport r = w.finish();
    s.error = r.error;
    counts[0] = r.pushes_sent;
    for (const auto& step : r.steps) counts[2] = std::max<long long>(counts[2], step.staleness);
  }
  long long total[3];
  MPI_Allreduce(counts, total, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&counts[2], &total[2], 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  s.pushes = total[0];
  s.pushes_received = total[1];
  s.max_staleness = total[2];
  return s;
}

class ParameterServer : public ::testing::Test {
 protected:
  void SetUp() override {
    if (world_size() < 2) GTEST_SKIP() << "the parameter server needs a server and a worker";
    tr_ = std::make_unique<MpiTransport>(MPI_COMM_WORLD);
    yield_where_oversubscribed(*tr_);
  }
  std::unique_ptr<MpiTransport> tr_;
};

float gradient_value(int rank, int step, std::size_t i) {
  return static_cast<float>(
      static_cast<int>((i * 13 + static_cast<std::size_t>(rank) * 7 + static_cast<std::size_t>(step) * 3) % 11) - 5);
}

std::vector<std::uint64_t> rows_for(int rank, int step, std::size_t table_rows) {
  std::vector<std::uint64_t> rows;
  for (std::size_t r = static_cast<std::size_t>(rank + step) % 3; r < table_rows;
       r += 2 + static_cast<std::size_t>(rank % 2))
    rows.push_back(r);
  return rows;
}

struct Case {
  int servers;
  bool sparse;
  PsAssignment assignment;
};

// Sync: after every step each worker's pulled values equal MPI_Allreduce of that step's
// gradients followed by the same SGD; async: the servers end at the same values.
void expect_matches_allreduce(MpiTransport& tr, PsMode mode, const Case& c) {
  const int n = world_size(), steps = 5;
  const PsRoles roles = ps_roles(n, c.servers);
  PsConfig config;
  config.mode = mode;
  config.learning_rate = 0.01;
  config.partition_bytes = 96;  // several partitions per server, one of them short
  config.assignment = c.assignment;
  const std::size_t rows = 53, row_elements = c.sparse ? 4 : 1;
  config.tensors = {{"t", rows, row_elements, c.sparse}};
  const std::size_t elements = rows * row_elements;

  // The reference, per step, from MPI_Allreduce (servers add zeros).
  std::vector<std::vector<float>> reference;
  std::vector<float> params(elements);
  ps_initial_params(DType::f32, 0, 0, elements, params.data());
  for (int t = 0; t < steps; ++t) {
    std::vector<float> g(elements, 0), sum(elements);
    if (!roles.is_server(tr.rank()))
      for (std::uint64_t r : c.sparse ? rows_for(tr.rank(), t, rows) : rows_for(0, 0, 0))
        for (std::size_t e = 0; e < row_elements; ++e)
          g[r * row_elements + e] = gradient_value(tr.rank(), t, r * row_elements + e);
    if (!c.sparse && !roles.is_server(tr.rank()))
      for (std::size_t i = 0; i < elements; ++i) g[i] = gradient_value(tr.rank(), t, i);
    MPI_Allreduce(g.data(), sum.data(), static_cast<int>(elements), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    sgd_update(DType::f32, params.data(), sum.data(), elements, config.learning_rate);
    reference.push_back(params);
  }

  std::size_t wrong = 0;
  const double final_tol = mode == PsMode::sync ? 0 : 1e-4;
  auto drive = [&](PsWorker& w, int rank) {
    for (int t = 0; t < steps; ++t) {
      PsTensorStep step;
      std::vector<float> g, out;
      if (c.sparse) step.rows = rows_for(rank, t, rows);
      const std::size_t n_rows = c.sparse ? step.rows.size() : rows;
      g.resize(n_rows * row_elements);
      out.assign(g.size(), -999);
      for (std::size_t j = 0; j < n_rows; ++j)
        for (std::size_t e = 0; e < row_elements; ++e) {
          const std::size_t global = (c.sparse ? step.rows[j] : j) * row_elements + e;
          g[j * row_elements + e] = gradient_value(rank, t, global);
        }
      step.gradient = reinterpret_cast<const std::byte*>(g.data());
      step.params = reinterpret_cast<std::byte*>(out.data());
      ASSERT_TRUE(w.step(std::span<const PsTensorStep>(&step, 1))) << w.error();
      if (mode != PsMode::sync) continue;
      for (std::size_t j = 0; j < n_rows; ++j)
        for (std::size_t e = 0; e < row_elements; ++e) {
          const std::size_t global = (c.sparse ? step.rows[j] : j) * row_elements + e;
          wrong += out[j * row_elements + e] != reference[static_cast<std::size_t>(t)][global];
        }
    }
  };
  const PsSession s = run_session(tr, config, roles, drive, [&](const PsPartition& p, const std::byte* values) {
    wrong += count_mismatches(DType::f32, values, reference.back().data() + p.first_row * row_elements,
                              p.rows * row_elements, final_tol);
  });
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(wrong, 0u) << "rank " << tr.rank();
  EXPECT_EQ(s.pushes, static_cast<std::int64_t>(roles.workers()) * steps * c.servers);
  EXPECT_EQ(s.pushes_received, s.pushes);
  if (mode == PsMode::sync) {
    EXPECT_EQ(s.max_staleness, 0);
  }
}

std::vector<Case> cases() {
  std::vector<Case> out;
  const int n = world_size();
  for (int servers : {1, n - 1})
    for (bool sparse : {false, true})
      for (PsAssignment a : {PsAssignment::round_robin, PsAssignment::hash}) out.push_back({servers, sparse, a});
  return out;
}

}  // namespace

TEST_F(ParameterServer, SyncPullsEqualMpiAllreducePlusSgdAfterEveryStep) {
  for (const Case& c : cases()) {
    SCOPED_TRACE("servers " + std::to_string(c.servers) + (c.sparse ? " sparse" : " dense"));
    expect_matches_allreduce(*tr_, PsMode::sync, c);
  }
}

// Tables of different row widths in one step: each row's values must be found at its
// own offset in the message (a server once assumed one width for all).
TEST_F(ParameterServer, SparseTablesOfDifferentRowWidthsSumExactly) {
  const int n = world_size(), steps = 3;
  const PsRoles roles = ps_roles(n, 1);
  PsConfig config;
  config.learning_rate = 0.5;
  config.partition_bytes = 64;
  config.tensors = {{"wide", 20, 4, true}, {"narrow", 30, 1, true}, {"wide2", 9, 3, true}};
  std::vector<std::vector<float>> params, sum;
  for (std::size_t t = 0; t < config.tensors.size(); ++t) {
    params.emplace_back(config.tensors[t].elements());
    ps_initial_params(DType::f32, t, 0, params[t].size(), params[t].data());
  }
  auto grad = [](int rank, int step, std::size_t t, std::size_t i) {
    return gradient_value(rank + 3 * static_cast<int>(t), step, i);
  };
  std::vector<std::vector<std::vector<float>>> reference;  // [step][tensor]
  for (int s = 0; s < steps; ++s) {
    for (std::size_t t = 0; t < config.tensors.size(); ++t) {
      const PsTensor& pt = config.tensors[t];
      std::vector<float> g(pt.elements(), 0), total(pt.elements());
      if (!roles.is_server(tr_->rank()))
        for (std::uint64_t r : rows_for(tr_->rank(), s, pt.rows))
          for (std::size_t e = 0; e < pt.row_elements; ++e)
            g[r * pt.row_elements + e] = grad(tr_->rank(), s, t, r * pt.row_elements + e);
      MPI_Allreduce(g.data(), total.data(), static_cast<int>(g.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      sgd_update(DType::f32, params[t].data(), total.data(), total.size(), config.learning_rate);
    }
    reference.push_back(params);
  }
  std::size_t wrong = 0;
  const PsSession session = run_session(*tr_, config, roles, [&](PsWorker& w, int rank) {
    for (int s = 0; s < steps; ++s) {
      std::vector<PsTensorStep> step(config.tensors.size());
      std::vector<std::vector<float>> g(step.size()), out(step.size());
      for (std::size_t t = 0; t < step.size(); ++t) {
        const PsTensor& pt = config.tensors[t];
        step[t].rows = rows_for(rank, s, pt.rows);
        for (std::uint64_t r : step[t].rows)
          for (std::size_t e = 0; e < pt.row_elements; ++e) g[t].push_back(grad(rank, s, t, r * pt.row_elements + e));
        out[t].assign(g[t].size(), -999);
        step[t].gradient = reinterpret_cast<const std::byte*>(g[t].data());
        step[t].params = reinterpret_cast<std::byte*>(out[t].data());
      }
      ASSERT_TRUE(w.step(step)) << w.error();
      for (std::size_t t = 0; t < step.size(); ++t) {
        const std::size_t width = config.tensors[t].row_elements;
        for (std::size_t j = 0; j < step[t].rows.size(); ++j)
          for (std::size_t e = 0; e < width; ++e)
            wrong += out[t][j * width + e] != reference[static_cast<std::size_t>(s)][t][step[t].rows[j] * width + e];
      }
    }
  });
  EXPECT_EQ(session.error, "");
  EXPECT_EQ(wrong, 0u) << "rank " << tr_->rank();
}

TEST_F(ParameterServer, AsyncAndBoundedApplyEveryPushExactlyOnce) {
  for (PsMode mode : {PsMode::async, PsMode::bounded})
    for (const Case& c : cases()) {
      SCOPED_TRACE(std::string(kPsModeNames.name(mode)) + " servers " + std::to_string(c.servers) +
                   (c.sparse ? " sparse" : " dense"));
      expect_matches_allreduce(*tr_, mode, c);
    }
}

// Worker v pushes -1 on the elements i with i % W == v and 0 elsewhere, with lr 1, so
// a pulled element minus its initial value counts worker v's pushes the server has
// applied. A worker about to compute step c must see every worker's pushes >= c - s.
TEST_F(ParameterServer, BoundedStalenessIsNeverExceededWithASlowWorker) {
  const int n = world_size();
  for (auto [mode, bound] : {std::pair{PsMode::bounded, 1}, std::pair{PsMode::bounded, 0}, std::pair{PsMode::sync, 0}})
    for (int servers : {1, n - 1}) {
      SCOPED_TRACE(std::string(kPsModeNames.name(mode)) + " s=" + std::to_string(bound) + " servers " +
                   std::to_string(servers));
      const PsRoles roles = ps_roles(n, servers);
      const int W = roles.workers(), steps = 8;
      PsConfig config;
      config.mode = mode;
      config.staleness = bound;
      config.learning_rate = 1;
      config.partition_bytes = 16;
      const std::size_t elements = static_cast<std::size_t>(W) * 6;
      config.tensors = {{"counts", elements, 1, false}};
      std::vector<float> initial(elements);
      ps_initial_params(DType::f32, 0, 0, elements, initial.data());
      std::int64_t worst_gap = 0;
      auto drive = [&](PsWorker& w, int rank) {
        std::vector<float> g(elements), out(elements);
        for (std::size_t i = 0; i < elements; ++i) g[i] = static_cast<int>(i) % W == rank ? -1.0f : 0.0f;
        PsTensorStep step{reinterpret_cast<const std::byte*>(g.data()), reinterpret_cast<std::byte*>(out.data()), {}};
        for (int t = 0; t < steps; ++t) {
          if (rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(3));  // the slow worker
          ASSERT_TRUE(w.step(std::span<const PsTensorStep>(&step, 1))) << w.error();
          const std::int64_t clock = t + 1;  // steps this worker has pushed
          for (std::size_t i = 0; i < elements; ++i) {
            const auto applied = static_cast<std::int64_t>(out[i] - initial[i]);
            if (applied < steps) worst_gap = std::max(worst_gap, clock - applied);  // finished workers cannot lag
          }
        }
      };
      const PsSession s = run_session(*tr_, config, roles, drive);
      EXPECT_EQ(s.error, "");
      EXPECT_LE(worst_gap, bound) << "rank " << tr_->rank() << " saw a worker further behind than the bound";
      EXPECT_LE(s.max_staleness, bound);
      EXPECT_EQ(s.pushes_received, s.pushes);
    }
}

namespace {
// Every rank must end the session with an error containing `expected`.
void expect_error_everywhere(const PsSession& s, const std::string& expected, int rank) {
  EXPECT_NE(s.error.find(expected), std::string::npos) << "rank " << rank << " got '" << s.error << "'";
}

PsConfig small_sparse_config(PsMode mode) {
  PsConfig config;
  config.mode = mode;
  config.partition_bytes = 64;
  config.tensors = {{"table", 40, 2, true}};
  return config;
}

// Steps with `rows_of(rank, step)` until the worker learns of an error, or `steps` pass.
std::function<void(PsWorker&, int)> sparse_driver(int steps,
                                                  std::function<std::vector<std::uint64_t>(int, int)> rows_of) {
  return [=](PsWorker& w, int rank) {
    for (int t = 0; t < steps; ++t) {
      PsTensorStep step;
      step.rows = rows_of(rank, t);
      std::vector<float> g(step.rows.size() * 2, 1), out(g.size());
      step.gradient = reinterpret_cast<const std::byte*>(g.data());
      step.params = reinterpret_cast<std::byte*>(out.data());
      if (!w.step(std::span<const PsTensorStep>(&step, 1))) return;
    }
  };
}
}  // namespace

TEST_F(ParameterServer, DuplicateSparseRowsFailOnEveryRank) {
  const PsRoles roles = ps_roles(world_size(), 1);
  for (PsMode mode : {PsMode::sync, PsMode::async}) {
    const PsSession s = run_session(*tr_, small_sparse_config(mode), roles, sparse_driver(4, [](int rank, int t) {
      return rank == 0 && t == 2 ? std::vector<std::uint64_t>{1, 5, 5} : std::vector<std::uint64_t>{1, 5, 9};
    }));
    expect_error_everywhere(s, "sparse row index 5 appears more than once", tr_->rank());
  }
}

TEST_F(ParameterServer, OutOfRangeSparseRowsFailOnEveryRank) {
  const PsRoles roles = ps_roles(world_size(), world_size() - 1);
  const int last = roles.workers() - 1;
  const PsSession s =
      run_session(*tr_, small_sparse_config(PsMode::bounded), roles, sparse_driver(3, [last](int rank, int t) {
        return rank == last && t == 1 ? std::vector<std::uint64_t>{2, 40} : std::vector<std::uint64_t>{2, 3};
      }));
  expect_error_everywhere(s, "sparse row index 40 is out of range for a table of 40 rows", tr_->rank());
}

TEST_F(ParameterServer, MismatchedTensorDefinitionsFailOnEveryRank) {
  const PsRoles roles = ps_roles(world_size(), 1);
  PsConfig config = small_sparse_config(PsMode::sync);
  if (tr_->rank() == 0) config.tensors[0].rows = 41;  // worker 0 disagrees with everyone
  const PsSession s =
      run_session(*tr_, config, roles, sparse_driver(3, [](int, int) { return std::vector<std::uint64_t>{0}; }));
  expect_error_everywhere(s, "tensor definitions differ between ranks: worker rank 0", tr_->rank());
}

TEST_F(ParameterServer, SyncWorkerStoppingEarlyIsAnErrorNotAHang) {
  const PsRoles roles = ps_roles(world_size(), 1);
  if (roles.workers() < 2) GTEST_SKIP() << "needs two workers";
  const PsSession s = run_session(*tr_, small_sparse_config(PsMode::sync), roles, [](PsWorker& w, int rank) {
    sparse_driver(rank == 0 ? 1 : 3, [](int, int) { return std::vector<std::uint64_t>{7}; })(w, rank);
  });
  expect_error_everywhere(s, "worker rank 0 finished after 1 step(s)", tr_->rank());
}
