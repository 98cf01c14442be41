#pragma once
// Where every command's rows go. Rank 0 prints each row's table line and writes the
// row to the CSV and the JSON together (a row is in both or in neither); the other
// ranks hold no files and discard. The paths are vetted before anything runs: two
// outputs naming one file, or an existing file with data in it (without --overwrite),
// are refused.
#include <mpi.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/common/result_row.hpp"

namespace CLI {
class App;
}

namespace collbench {

struct OutputOptions {
  std::string csv_path;   // empty: <output_dir>/collbench-<name>-<time>[-N].csv
  std::string json_path;  // empty: next to the CSV
  std::string output_dir = "results";
  bool overwrite = false;  // replace existing files that hold data
};
// --csv, --json, --output-dir and --overwrite; `name` is what default file names carry.
void add_output_flags(CLI::App& app, OutputOptions& out, const std::string& name);

// Another file a command writes at its end (replay's --timeline): vetted with the
// CSV and JSON before anything runs, written by ResultSink::write_other.
struct OtherOutput {
  std::string flag;  // "--timeline"
  std::string path;
};

class ResultSink {
 public:
  ResultSink();  // discards everything
  ~ResultSink();
  ResultSink(ResultSink&&) noexcept;
  ResultSink& operator=(ResultSink&&) noexcept;
  // Collective over comm: rank 0 settles and vets the paths (filling in `out`'s
  // defaults) and creates both files under a CSV header of `columns`; throws
  // RunError on every rank if it could not.
  static ResultSink open(OutputOptions& out, const std::string& name, std::vector<std::string> columns,
                         const nlohmann::json& metadata, MPI_Comm comm, const std::vector<OtherOutput>& others = {});
  // A write that fails ends the run with kOutputFailedExit, both files as they were
  // before the row (rank 0; the launcher ends the others).
  void add(const Row& row);
  // Writes `content` to a vetted other output; a failure ends the run like add's.
  void write_other(const OtherOutput& other, const std::string& content);
  // Marks the JSON completed, or (non-empty `stopped`) stopped early, saying why.
  void finish(const std::string& stopped = "");
  // "# WHAT: CSV and JSON" on stdout (rank 0).
  void print_paths(const char* what) const;

  struct State;  // rank 0's files (result_sink.cpp)

 private:
  std::unique_ptr<State> state_;
};

// From any thread (the watchdog, the interrupt handler): flushes the table printed so
// far, marks the open sink's JSON stopped, saying why, and returns where the results
// are ("" when no sink is open). Waits briefly for a row being written, never for long.
std::string stop_results(const std::string& why);

}  // namespace collbench
