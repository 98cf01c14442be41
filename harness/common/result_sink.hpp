#pragma once
// Where every command's rows go. Rank 0 prints each row's table line, appends the
// row to the CSV (flushed per row) and to the JSON document (saved at every flush,
// once per size or configuration); the other ranks hold no files and discard.
#include <mpi.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/common/result_row.hpp"
#include "harness/common/writers.hpp"

namespace CLI {
class App;
}

namespace collbench {

struct OutputOptions {
  std::string csv_path;   // empty: <output_dir>/collbench-<name>-<time>.csv
  std::string json_path;  // empty: next to the CSV
  std::string output_dir = "results";
};
// --csv, --json and --output-dir; `name` is what default file names carry.
void add_output_flags(CLI::App& app, OutputOptions& out, const std::string& name);

class ResultSink {
 public:
  ResultSink() = default;  // discards everything
  // Collective over comm: rank 0 settles the paths and opens both files under a CSV
  // header of `columns`; throws RunError on every rank if it could not.
  static ResultSink open(OutputOptions& out, const std::string& name, std::vector<std::string> columns,
                         const nlohmann::json& metadata, MPI_Comm comm);
  void add(const Row& row);
  void flush();

 private:
  std::unique_ptr<CsvWriter> csv_;
  std::unique_ptr<JsonWriter> json_;
};

}  // namespace collbench
