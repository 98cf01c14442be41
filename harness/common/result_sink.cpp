#include "harness/common/result_sink.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "harness/common/control.hpp"
#include "harness/common/run_error.hpp"

namespace collbench {

void add_output_flags(CLI::App& app, OutputOptions& out, const std::string& name) {
  app.add_option("--csv", out.csv_path, "CSV output path (default: results/collbench-" + name + "-<time>.csv)");
  app.add_option("--json", out.json_path, "JSON output path (default: next to the CSV)");
  app.add_option("--output-dir", out.output_dir, "Directory for default output files")->capture_default_str();
}

namespace {
void settle_paths(OutputOptions& o, const std::string& name) {
  if (o.csv_path.empty() && o.json_path.empty()) {
    char stamp[32];
    const std::time_t t = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&t));
    std::filesystem::create_directories(o.output_dir);
    const std::string base = o.output_dir + "/collbench-" + name + "-" + stamp;
    o.csv_path = base + ".csv";
    o.json_path = base + ".json";
  } else if (o.json_path.empty()) {
    o.json_path = std::filesystem::path(o.csv_path).replace_extension(".json").string();
  } else if (o.csv_path.empty()) {
    o.csv_path = std::filesystem::path(o.json_path).replace_extension(".csv").string();
  }
}
}  // namespace

ResultSink ResultSink::open(OutputOptions& out, const std::string& name, std::vector<std::string> columns,
                            const nlohmann::json& metadata, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  ResultSink sink;
  std::string err;
  if (rank == 0) {
    try {
      settle_paths(out, name);
      sink.csv_ = std::make_unique<CsvWriter>(out.csv_path, std::move(columns));
      sink.json_ = std::make_unique<JsonWriter>(out.json_path, metadata);
    } catch (const std::exception& e) {
      err = e.what();
    }
  }
  control_broadcast(err, 0, comm);
  if (!err.empty()) throw RunError(err);
  return sink;
}

void ResultSink::add(const Row& row) {
  if (!csv_) return;
  if (!row.line.empty()) {
    std::fputs(row.line.c_str(), stdout);
    std::fflush(stdout);
  }
  csv_->write(row.fields);
  json_->add(to_json(row));
}

void ResultSink::flush() {
  if (json_) json_->save();
}

}  // namespace collbench
