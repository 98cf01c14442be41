#include "harness/tune/tune_command.hpp"

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "collectives/dtype.hpp"
#include "collectives/names.hpp"
#include "collectives/transport/mpi/forced_algorithm.hpp"
#include "collectives/transport/mpi/library.hpp"
#include "collectives/transport/mpi/mpi_names.hpp"
#include "collectives/transport/mpi/selection_defaults.hpp"
#include "collectives/transport/mpi/tool_interface.hpp"
#include "generated/build_info.hpp"
#include "harness/common/metadata.hpp"
#include "harness/common/output_file.hpp"
#include "harness/common/run_error.hpp"
#include "harness/tune/mpich_selection.hpp"
#include "harness/tune/open_mpi_rules.hpp"
#include "harness/tune/tune_results.hpp"

namespace collbench {

CLI::App* add_command(CLI::App& app, TuneFlags& f) {
  CLI::App* tune =
      app.add_subcommand("tune",
                         "Write the running MPI library's tuning file (MPICH's collective selection JSON, Open MPI's "
                         "coll/tuned dynamic rules) from collbench results of its forced algorithms, or check one");
  TuneOptions& o = f.parsed;
  tune->add_option("results", o.results,
                   "collbench JSON results with the library's default (mpi) and forced rows (mpi[NAME]), "
                   "as scripts/mpi_algorithms.sh writes them");
  tune->add_option("--out", o.out_path, "The tuning file to write");
  tune->add_option("--check", o.check_path, "Check a tuning file for the running library instead");
  tune->add_flag("--overwrite", o.overwrite, "Replace --out if it exists");
  return tune;
}

TuneOptions resolve_command(const TuneFlags& f, const CommandContext&) {
  const TuneOptions& o = f.parsed;
  if (!o.check_path.empty() && (!o.results.empty() || !o.out_path.empty()))
    throw std::invalid_argument("tune --check FILE takes no results and no --out");
  if (o.check_path.empty() && (o.results.empty() || o.out_path.empty()))
    throw std::invalid_argument("tune needs results to choose from and --out FILE (or --check FILE)");
  for (const std::string& r : o.results)
    if (r.size() < 5 || r.compare(r.size() - 5, 5, ".json") != 0)
      throw std::invalid_argument("tune reads collbench's JSON results (each round's mean is there), not " + r);
  return o;
}

namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson library_selection() {
  static const std::string text = mpich_default_selection_text();  // a read of the whole libmpich
  if (text.empty())
    throw RunError("cannot find the selection tree built into this MPICH (" + mpi_library().summary +
                   "), so collbench cannot write a file that covers every collective");
  return OrderedJson::parse(text);
}

// Which fan-in/out Open MPI 4.1's forced path passes for each collective (do_this's
// tree_fanout or chain_fanout), so the file's rules run the algorithm as it was measured.
const char* open_mpi_fanout(Collective c) {
  switch (c) {
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::reduce_scatter: return "chain_fanout";
    default: return "tree_fanout";
  }
}

std::map<Collective, OpenMpiAlgorithms> open_mpi_algorithms() {
  std::map<Collective, OpenMpiAlgorithms> out;
  for (Collective c : kAllCollectives) {
    if (open_mpi_collective_id(c) < 0) continue;
    const std::string base = open_mpi_algorithm_variable(c);
    const std::string fanout = base + "_" + open_mpi_fanout(c), segsize = base + "_segmentsize";
    const auto vars = read_control_variables({base, fanout, segsize});
    if (!vars.count(base)) continue;
    OpenMpiAlgorithms a;
    for (const auto& [id, name] : vars.at(base).choices)
      if (id != 0) a.ids[name] = static_cast<int>(id);
    if (vars.count(fanout)) a.faninout = static_cast<int>(vars.at(fanout).number);
    if (vars.count(segsize)) a.segsize = static_cast<int>(vars.at(segsize).number);
    out[c] = a;
  }
  if (out.empty())
    throw RunError("this Open MPI does not show coll/tuned's algorithms through MPI_T (is coll/tuned in use?)");
  return out;
}

std::string format_choice(const CollectiveChoices& cc, const CommunicatorChoices& comm, const SizeChoice& s) {
  char buf[320];
  std::snprintf(buf, sizeof buf, "%s, %d ranks, %zu B: default %.4g us%s%s%s, fastest %s%s%.4g us: ",
                std::string(collective_name(cc.collective)).c_str(), comm.ranks, s.bytes, s.default_us,
                s.library_algorithm.empty() ? "" : " (the library's ", s.library_algorithm.c_str(),
                s.library_algorithm.empty() ? "" : ")", s.fastest.empty() ? "none" : s.fastest.c_str(),
                s.fastest.empty() ? "" : " ", s.fastest_us);
  return buf + (s.algorithm.empty() ? "default kept (" + s.reason + ")" : s.algorithm + " (" + s.reason + ")");
}

struct Written {
  std::string text;
  std::vector<std::string> choices;  // one line per measured size, as the file's notes
};

Written write_file(const TuneOptions& o) {
  const TuneResults results = read_tune_results(o.results);
  const MpiLibrary& lib = mpi_library();
  LibraryChoice library;  // MPICH's own tree says what its default runs; Open MPI decides in code
  if (lib.family == MpiFamily::mpich)
    library = [tree = library_selection(), elem = results.element_bytes](Collective c, int ranks, int nodes,
                                                                         int per_node, std::size_t bytes) {
      return mpich_library_choice(tree, c, ranks, nodes, per_node, bytes, elem);
    };
  std::vector<CollectiveChoices> choices = choose_algorithms(results.rows, library);
  if (lib.family == MpiFamily::open_mpi) keep_compositions_as_measured(choices, open_mpi_compositions());
  std::vector<std::string> notes = {
      "collbench tune " + std::string(build_info::version) + " (git " + build_info::git_revision + "), " + utc_now(),
      "for " + lib.summary + "; use with: " + join(tuning_file_settings(o.out_path), std::identity{}, " "),
      "rule: a size takes the choice of the nearest measured size at or below it; below the smallest and above the "
      "largest measured size, and at communicator sizes not measured, the library keeps its own choice",
      "a forced algorithm is chosen where it beat the default in most launch rounds (input files) and in the median "
      "(by p50, or by mean where its p50 is slower by less than the spread of the round means); "
      "from one file, where every round of it beat the default's fastest round; else the default. Where the "
      "library's own tree says which algorithm its default runs, that algorithm forced is what must be beaten "
      "(a forced call skips the selection every default call pays), and where it is the fastest the default is kept",
      "measured:"};
  for (const std::string& n : results.notes) notes.push_back("  " + n);
  Written w;
  for (const CollectiveChoices& cc : choices)
    for (const CommunicatorChoices& comm : cc.communicators)
      for (const SizeChoice& s : comm.sizes) w.choices.push_back(format_choice(cc, comm, s));
  notes.push_back("choices:");
  for (const std::string& c : w.choices) notes.push_back("  " + c);
  std::vector<CollectiveChoices> tunable;
  for (const CollectiveChoices& cc : choices) {
    if (tunable_through_file(cc.collective))
      tunable.push_back(cc);
    else
      std::fprintf(stderr, "collbench: %s cannot be tuned through %s's file; left out\n",
                   std::string(collective_name(cc.collective)).c_str(), lib.name.c_str());
  }
  if (lib.family == MpiFamily::mpich)
    w.text = write_mpich_selection(library_selection(), tunable, results.element_bytes, notes);
  else if (lib.family == MpiFamily::open_mpi)
    w.text = write_open_mpi_rules(tunable, open_mpi_algorithms(), notes);
  else
    throw RunError("collbench writes tuning files for MPICH and Open MPI only, not " + lib.summary);
  // What is written must pass what --check would say of it.
  if (const std::vector<std::string> problems = check_tuning_text(w.text); !problems.empty())
    throw std::logic_error("collbench wrote a tuning file its own check refuses: " + problems.front());
  return w;
}

}  // namespace

std::vector<std::string> check_tuning_text(const std::string& text) {
  const MpiLibrary& lib = mpi_library();
  if (lib.family == MpiFamily::mpich) {
    const OrderedJson defaults = library_selection();
    return check_mpich_selection(text, defaults, mpich_known_containers(defaults));
  }
  if (lib.family == MpiFamily::open_mpi) {
    std::map<long, long> largest;
    for (const auto& [c, a] : open_mpi_algorithms())
      for (const auto& [name, id] : a.ids)
        largest[open_mpi_collective_id(c)] = std::max(largest[open_mpi_collective_id(c)], static_cast<long>(id));
    return read_open_mpi_rules(text, largest).problems;
  }
  throw RunError("collbench checks tuning files for MPICH and Open MPI only, not " + lib.summary);
}

bool tunable_through_file(Collective c) {
  switch (mpi_library().family) {
    case MpiFamily::mpich: return mpich_tunable(c);
    case MpiFamily::open_mpi: return open_mpi_collective_id(c) >= 0;
    default: return false;
  }
}

std::vector<std::string> tuning_file_settings(const std::string& path) {
  std::vector<std::string> out = mpi_tuning_file_settings();
  for (std::string& s : out)
    if (const std::size_t at = s.find("{}"); at != std::string::npos) s.replace(at, 2, path);
  return out;
}

namespace {

// Why a run with this text as its tuning file is refused ("" when it is not).
std::string refusal(const std::string& path, const std::string& setting, const std::string& text) {
  try {
    const std::vector<std::string> problems = check_tuning_text(text);
    if (problems.empty()) return "";
    return path + " (" + setting + ") would not be read as written by " + mpi_library().summary + ": " +
           problems.front() +
           (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more: collbench tune --check)"
                                : "");
  } catch (const std::exception& e) {  // the library's own tree not found, an MPI_T failure
    return e.what();
  }
}

std::string unreadable(const std::string& path, const std::string& setting) {
  return "cannot read the tuning file " + path + " (" + setting + ")";
}

}  // namespace

const std::string& tuning_file_refusal() {
  static const std::string why = [] {
    const TuningFileRequest& t = mpi_tuning_file_request();
    if (t.path.empty() || !t.ignored.empty()) return t.ignored;
    return t.readable ? refusal(t.path, t.setting, t.text) : unreadable(t.path, t.setting);
  }();
  return why;
}

std::string mpich_tuning_file_refusal_before_init() {
  const std::string var = "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE";
  const char* path = std::getenv(var.c_str());
  if (!path || !*path || mpi_library().family != MpiFamily::mpich) return "";
  const std::string setting = var + "=" + path;
  std::string text;
  try {
    text = read_whole_file(path, "tuning file");
  } catch (const RunError&) {
    return unreadable(path, setting);
  }
  return refusal(path, setting, text);
}

int run_command(const TuneOptions& o, const Invocation& inv) {
  std::string error;
  std::vector<std::string> problems;
  Written written;
  if (inv.rank == 0) try {
      if (!o.check_path.empty())
        problems = check_tuning_text(read_whole_file(o.check_path, "tuning file"));
      else {
        OutputFile out(o.out_path, o.overwrite ? ExistingFile::replace : ExistingFile::refuse, "tuning file");
        written = write_file(o);
        out.append(written.text);
        out.publish();
      }
    } catch (const std::exception& e) {  // RunError, a writer's invalid_argument, a JSON error
      error = e.what();
    }
  int bad = error.empty() && problems.empty() ? 0 : 1;
  MPI_Bcast(&bad, 1, MPI_INT, 0, inv.comm);
  if (inv.rank != 0) {
    if (bad) throw RunError("refused on rank 0");
    return 0;
  }
  if (!error.empty()) throw RunError(error);
  if (!o.check_path.empty()) {
    if (!problems.empty()) {
      std::string all = o.check_path + " would not be read as written by " + mpi_library().summary + ":";
      for (const std::string& p : problems) all += "\n  " + p;
      throw RunError(all);
    }
    std::printf("%s: a valid tuning file for %s\n", o.check_path.c_str(), mpi_library().summary.c_str());
    return 0;
  }
  for (const std::string& c : written.choices) std::printf("%s\n", c.c_str());
  std::printf("wrote %s for %s; use it with: %s\n", o.out_path.c_str(), mpi_library().summary.c_str(),
              join(tuning_file_settings(o.out_path), std::identity{}, " ").c_str());
  return 0;
}

}  // namespace collbench
