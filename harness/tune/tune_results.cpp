#include "harness/tune/tune_results.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "collectives/dtype.hpp"
#include "collectives/names.hpp"
#include "collectives/transport/mpi/forced_algorithm.hpp"
#include "collectives/transport/mpi/library.hpp"
#include "harness/common/run_error.hpp"

namespace collbench {

std::string read_whole_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RunError(std::string("cannot read ") + what + " " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

std::string hosts_text(const nlohmann::json& run) {
  if (!run.contains("hosts") || !run["hosts"].is_object()) return "hosts not recorded";
  std::string out;
  for (const auto& [host, ranks] : run["hosts"].items())
    out += (out.empty() ? "" : ", ") + host + " (" + std::to_string(ranks.size()) + ")";
  return out;
}

// One result's runs (each must be of the running library) and rows of the library's
// default and forced algorithms, added to `r`.
void read_rows(const nlohmann::json& doc, const std::string& path, std::size_t launch, const std::string& library,
               std::set<std::tuple<int, Collective, int, std::size_t, std::string>>& seen, TuneResults& r) {
  if (!doc.contains("rows") || !doc["rows"].is_array())
    throw RunError(path + ": not a collbench result (no \"rows\")");
  const nlohmann::json runs = doc.value(
      "runs", doc.contains("metadata") ? nlohmann::json::array({doc["metadata"]}) : nlohmann::json::array());
  for (const nlohmann::json& run : runs) {
    const std::string measured = run.contains("mpi") ? run["mpi"].value("library", "") : "";
    if (measured != library)
      throw RunError(path + " was measured with " + (measured.empty() ? "an unrecorded library" : measured) +
                     ", but this is " + library +
                     ": algorithm names and defaults are the library's own; tune with the library measured");
    r.notes.push_back(
        path + ": " + run.value("started_utc", "?") + ", collbench " + run.value("git_revision", "?") + ", " +
        std::to_string(run.value("ranks", 0)) + " ranks on " + hosts_text(run) +
        (run.contains("interconnect") && run["interconnect"].is_object() && run["interconnect"].contains("summary")
             ? ", " + run["interconnect"]["summary"].get<std::string>()
             : ""));
  }
  for (const nlohmann::json& row : doc["rows"]) {
    const std::string label = row.value("algorithm", "");
    if (label != "mpi" && !forced_algorithm_of(label)) continue;
    const auto c = parse_collective(row.value("collective", ""));
    if (!c) throw RunError(path + ": a row of unknown collective " + row.value("collective", ""));
    TuneMeasurement m{*c,
                      row.value("ranks", 0),
                      row.value("bytes", std::size_t{0}),
                      label,
                      row.value("p50_us", 0.0),
                      row.value("round_mean_us", std::vector<double>{}),
                      row.value("errors", -1LL),
                      static_cast<int>(launch),
                      row.value("nodes", 1),
                      row.value("ranks_per_node", 1),
                      row.value("avg_us", 0.0)};
    const auto dtype = parse_dtype(row.value("dtype", ""));
    if (!dtype) throw RunError(path + ": a row without a known dtype");
    if (r.element_bytes != 0 && r.element_bytes != dtype_size(*dtype))
      throw RunError("the results mix datatypes; tune from one datatype's measurements");
    r.element_bytes = dtype_size(*dtype);
    if (!seen.emplace(m.launch, m.collective, m.ranks, m.bytes, m.label).second)
      throw RunError(label + " " + row.value("collective", "") + " at " + std::to_string(m.bytes) + " bytes on " +
                     std::to_string(m.ranks) + " ranks is in " + path +
                     " twice; a file holds one launch round (merge_results.py of one mpi_algorithms.sh run)");
    r.rows.push_back(std::move(m));
  }
}

}  // namespace

TuneResults read_tune_results(const std::vector<std::string>& paths) {
  TuneResults r;
  // Each file is one launch round (the default and each forced algorithm measured side by
  // side): the same point may come from several, once from each.
  std::set<std::tuple<int, Collective, int, std::size_t, std::string>> seen;
  const std::string library = mpi_library().summary;
  for (std::size_t launch = 0; launch < paths.size(); ++launch) {
    const std::string& path = paths[launch];
    if (std::find(paths.begin(), paths.begin() + static_cast<std::ptrdiff_t>(launch), path) !=
        paths.begin() + static_cast<std::ptrdiff_t>(launch))
      throw RunError(path + " is given twice; pass each measurement once");
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(read_whole_file(path, "result"));
    } catch (const nlohmann::json::exception& e) {
      throw RunError(path + ": not a collbench JSON result (" + e.what() + ")");
    }
    // A field of the wrong type is a file that is not a collbench result, named as such.
    try {
      read_rows(doc, path, launch, library, seen, r);
    } catch (const nlohmann::json::exception& e) {
      throw RunError(path + ": not a collbench result (" + e.what() + ")");
    }
  }
  if (r.rows.empty()) throw RunError("the results hold no rows of the MPI library (mpi, mpi[NAME])");
  return r;
}

}  // namespace collbench
