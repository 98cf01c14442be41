// collbench: the benchmark program. Every rank parses the same command line; rank 0
// alone speaks, and every error ends all ranks with a non-zero exit, never a hang.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <memory>

#include "harness/common/control.hpp"
#include "harness/common/metadata.hpp"
#include "collectives/mpi/known_defects.hpp"
#include "collectives/mpi/baselines.hpp"
#include "collectives/mpi/transport.hpp"
#include "harness/command_line.hpp"
#include "algorithms/parameter_server/protocol.hpp"
#include "harness/ps/ps_rows.hpp"
#include "harness/ps/ps_sweep.hpp"
#include "algorithms/catalog.hpp"
#include "harness/replay/replay.hpp"
#include "harness/replay/replay_rows.hpp"
#include "harness/run/sweep.hpp"
#include "harness/run/run_table.hpp"
#include "harness/common/topology.hpp"
#include "harness/workloads/workloads_command.hpp"
#include "harness/common/writers.hpp"

using namespace collbench;

namespace {

std::uint64_t hash_arguments(int argc, const char* const* argv) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a; argv[0] may differ between nodes
  for (int i = 1; i < argc; ++i)
    for (const char* p = argv[i];; ++p) {
      h = (h ^ static_cast<unsigned char>(*p)) * 1099511628211ULL;
      if (!*p) break;
    }
  return h;
}

bool arguments_agree(int argc, const char* const* argv, MPI_Comm comm) {
  const auto h = static_cast<long long>(hash_arguments(argc, argv));
  std::vector<long long> v{h, ~h};
  control_allreduce(v, [](long long a, long long b) { return std::max(a, b); }, comm);
  return v[0] == ~v[1];  // max equals min
}

// Rank 0 opens the output files; every rank learns whether that worked.
std::string open_outputs(RunOptions& o, bool replay, const nlohmann::json& metadata, int rank, MPI_Comm comm,
                         std::unique_ptr<CsvWriter>& csv, std::unique_ptr<JsonWriter>& json) {
  std::string err;
  if (rank == 0) {
    try {
      if (o.csv_path.empty() && o.json_path.empty()) {
        char stamp[32];
        const std::time_t t = std::time(nullptr);
        std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&t));
        std::filesystem::create_directories(o.output_dir);
        const std::string name =
            replay ? "replay" : o.parameter_server ? "ps" : std::string(collective_name(o.collective));
        const std::string base = o.output_dir + "/collbench-" + name + "-" + stamp;
        o.csv_path = base + ".csv";
        o.json_path = base + ".json";
      } else if (o.json_path.empty()) {
        o.json_path = std::filesystem::path(o.csv_path).replace_extension(".json").string();
      } else if (o.csv_path.empty()) {
        o.csv_path = std::filesystem::path(o.json_path).replace_extension(".csv").string();
      }
      if (replay) csv = std::make_unique<CsvWriter>(CsvWriter::with_columns(o.csv_path, replay_columns()));
      else csv = std::make_unique<CsvWriter>(o.csv_path, o.parameter_server ? ps_extra_columns() : std::vector<std::string>{});
      json = std::make_unique<JsonWriter>(o.json_path, metadata);
    } catch (const std::exception& e) {
      err = e.what();
    }
  }
  control_broadcast(err, 0, comm);
  return err;
}

int run_command(int argc, const char* const* argv, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  Registry registry;
  register_mpi_baselines(registry);
  register_reference_algorithms(registry);
  register_parameter_server(registry);

  Command cmd = parse_command_line(argc, argv, registry, size);
  auto fail = [&](const std::string& msg) {
    if (rank == 0) std::fprintf(stderr, "collbench: error: %s\n", msg.c_str());
    return 2;
  };
  if (!arguments_agree(argc, argv, comm))
    return fail("ranks were launched with different arguments; every rank must get the same command line");
  switch (cmd.kind) {
    case Command::Kind::error: return fail(cmd.text);
    case Command::Kind::help:
      if (rank == 0) std::printf("%s", cmd.text.c_str());
      return 0;
    case Command::Kind::list:
      if (rank == 0) print_algorithm_list(registry);
      return 0;
    case Command::Kind::workloads_list:
      if (rank == 0) std::printf("%s", workload_list_text().c_str());
      return 0;
    case Command::Kind::workloads_show:
      if (rank == 0) std::printf("%s", workload_show_text(cmd.run.replay).c_str());
      return 0;
    case Command::Kind::run:
    case Command::Kind::replay: break;
  }
  const bool replay = cmd.kind == Command::Kind::replay;

  RunOptions& o = cmd.run;
  if (auto defect = known_mpi_defect(o.collective, o.in_place, o.root); defect && !o.parameter_server && !replay)
    return fail(*defect);
  MpiTransport transport(comm);
  const Topology topology = discover_topology(comm, o.ranks_per_node);
  o.params.segment_bytes = o.segment_bytes;
  o.params.node_of_rank = topology.node_of_rank;
  nlohmann::json metadata = collect_metadata(argc, argv, comm, o, std::string(transport.name()), topology);
  if (replay) add_replay_metadata(metadata, o);
  std::unique_ptr<CsvWriter> csv;
  std::unique_ptr<JsonWriter> json;
  if (std::string err = open_outputs(o, replay, metadata, rank, comm, csv, json); !err.empty()) return fail(err);

  if (rank == 0 && !replay) {
    const int hosts = static_cast<int>(metadata["hosts"].size());
    const std::string library = metadata["mpi"]["library"].get<std::string>();
    if (o.parameter_server) print_ps_table_header(o, size, hosts, library, metadata["parameter_server"]);
    else print_table_header(o, size, hosts, library);
  }
  std::int64_t wrong = 0;
  if (o.parameter_server || replay) {
    try {
      wrong = replay ? run_replay(o, registry, transport, comm, {csv.get(), json.get()}, topology)
                     : run_ps_sweep(o, registry, transport, comm, {csv.get(), json.get()}, topology);
    } catch (const PsRunError& e) {
      if (rank == 0) std::printf("# results so far: %s and %s\n", o.csv_path.c_str(), o.json_path.c_str());
      return fail(e.what());
    }
  } else {
    wrong = run_sweep(o, registry, transport, comm, {csv.get(), json.get()}, topology);
  }
  if (rank == 0) {
    std::printf("# results: %s and %s\n", o.csv_path.c_str(), o.json_path.c_str());
    if (wrong > 0) std::fprintf(stderr, "collbench: error: %lld wrong element(s) found; see the errors column\n",
                                static_cast<long long>(wrong));
  }
  return wrong > 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int rc = 0;
  try {
    rc = run_command(argc, argv, comm);
  } catch (const std::exception& e) {
    // Past argument checking, ranks may be inside a collective: abort all of them.
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "collbench: error on rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return rc;
}
