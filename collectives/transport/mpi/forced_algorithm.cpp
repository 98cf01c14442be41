#include "collectives/transport/mpi/forced_algorithm.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "collectives/process/fnv1a.hpp"
#include "collectives/transport/mpi/library.hpp"
#include "collectives/transport/mpi/mpi_names.hpp"
#include "collectives/transport/mpi/tool_interface.hpp"

namespace collbench {
namespace {

std::string env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  return v ? v : "";
}

ForcedAlgorithm mpich_forced(Collective c) {
  ForcedAlgorithm f;
  const std::string var(mpi_names(c).mpich_algorithm_cvar), value = env(var);
  if (value.empty() || value == "auto") return f;
  f.algorithm = value;
  f.setting = var + "=" + value;  // MPICH itself refuses an unknown value at MPI_Init
  if (env("MPIR_CVAR_COLLECTIVE_FALLBACK") != "error")
    f.cautions.push_back("MPICH silently runs another algorithm for calls that " + value +
                         " cannot serve; set MPIR_CVAR_COLLECTIVE_FALLBACK=error to make that an error");
  if (env("MPIR_CVAR_DEVICE_COLLECTIVES") != "none")
    f.cautions.push_back("MPICH's ch4 device may route calls around " + value +
                         "; set MPIR_CVAR_DEVICE_COLLECTIVES=none to prevent it");
  return f;
}

// Open MPI components that take a collective from coll/tuned when their priority is
// higher and they are not excluded, with the collectives they take (empty: any).
struct Rival {
  const char* component;
  std::vector<Collective> takes;
};
const std::vector<Rival> kOpenMpiRivals = {
    {"han",
     {Collective::allreduce, Collective::allgather, Collective::broadcast, Collective::gather, Collective::reduce}},
    {"adapt", {Collective::broadcast, Collective::reduce}},
    {"sm", {Collective::allreduce, Collective::broadcast, Collective::reduce}},
    {"hcoll", {}},
    {"ucc", {}},
    {"fca", {}},
    {"xhc", {}},
    {"acoll", {}},
};

// Open MPI's "coll" list: "a,b" keeps only those components, "^a,b" drops them.
bool excluded(const std::string& list, const std::string& component) {
  if (list.empty()) return false;
  const bool negated = list[0] == '^';
  std::istringstream in(negated ? list.substr(1) : list);
  bool listed = false;
  for (std::string item; std::getline(in, item, ',');) listed |= item == component;
  return negated ? listed : !listed;
}

}  // namespace

std::string open_mpi_algorithm_variable(Collective c) {
  return "coll_tuned_" + std::string(mpi_names(c).open_mpi_name) + "_algorithm";
}

namespace {

// Open MPI's algorithms for a collective: its choices less 0 ("ignore", the library chooses).
std::map<long long, std::string> offered(const ControlVariable& v) {
  auto out = v.choices;
  out.erase(0);
  return out;
}

std::string choices_text(const ControlVariable& v) {
  return join(offered(v), [](const auto& choice) { return std::to_string(choice.first) + " " + choice.second; });
}

std::vector<std::string> open_mpi_selection_variables() {
  std::vector<std::string> names = {"coll", "coll_tuned_priority"};
  for (const Rival& r : kOpenMpiRivals) names.push_back("coll_" + std::string(r.component) + "_priority");
  return names;
}

// Why coll/tuned does not get `c` (it is excluded, or a component of higher priority takes
// the call first), so that `what` has no effect; "" when it does.
std::string open_mpi_taken_from_tuned(Collective c, const std::map<std::string, ControlVariable>& vars,
                                      const std::string& what) {
  const std::string list = vars.count("coll") ? vars.at("coll").text : std::string();
  const long long tuned = vars.count("coll_tuned_priority") ? vars.at("coll_tuned_priority").number : 0;
  if (excluded(list, "tuned")) return "coll/tuned is not in use (coll=" + list + "), so " + what + " has no effect";
  for (const Rival& r : kOpenMpiRivals) {
    const auto p = vars.find("coll_" + std::string(r.component) + "_priority");
    if (p == vars.end() || p->second.number <= tuned || excluded(list, r.component)) continue;
    if (!r.takes.empty() && std::find(r.takes.begin(), r.takes.end(), c) == r.takes.end()) continue;
    return "Open MPI's coll/" + std::string(r.component) + " (priority " + std::to_string(p->second.number) +
           ") takes " + std::string(mpi_names(c).function) + " before coll/tuned (priority " + std::to_string(tuned) +
           "), so " + what + " would not run; exclude it (OMPI_MCA_coll=^" + r.component + ")";
  }
  return "";
}

}  // namespace

std::string open_mpi_tuned_unavailable(Collective c, const std::string& what) {
  const auto vars = read_control_variables(open_mpi_selection_variables());
  return open_mpi_taken_from_tuned(c, vars, what);
}

namespace {

ForcedAlgorithm open_mpi_forced(Collective c) {
  ForcedAlgorithm f;
  const std::string var = open_mpi_algorithm_variable(c);
  std::vector<std::string> names = open_mpi_selection_variables();
  names.insert(names.end(), {var, "coll_tuned_use_dynamic_rules"});
  const auto vars = read_control_variables(names);
  const auto alg = vars.find(var);
  const std::string asked = env("OMPI_MCA_" + var);
  const std::string list = vars.count("coll") ? vars.at("coll").text : std::string();
  if (alg == vars.end()) {  // coll/tuned was not opened: nothing can be forced
    if (!asked.empty()) {
      f.algorithm = asked;
      f.setting = "OMPI_MCA_" + var + "=" + asked;
      f.refused = "coll/tuned is not in use (coll=" + list + "), so " + var + " has no effect";
    }
    return f;
  }
  if (alg->second.number == 0) {
    // Open MPI prints a warning for a value it does not know, and keeps "ignore".
    if (!asked.empty() && asked != "0" && asked != "ignore") {
      f.algorithm = asked;
      f.setting = "OMPI_MCA_" + var + "=" + asked;
      f.refused = "Open MPI did not accept " + var + "=" + asked + "; its " + std::string(mpi_names(c).open_mpi_name) +
                  " algorithms are " + choices_text(alg->second);
    }
    return f;
  }
  f.algorithm = alg->second.text;
  f.setting = var + "=" + alg->second.text + " (" + std::to_string(alg->second.number) + ")";
  const auto dynamic = vars.find("coll_tuned_use_dynamic_rules");
  if (dynamic == vars.end() || dynamic->second.number == 0) {
    f.refused = "Open MPI ignores " + var +
                " unless coll_tuned_use_dynamic_rules is true "
                "(set OMPI_MCA_coll_tuned_use_dynamic_rules=1)";
    return f;
  }
  if (const std::string taken = open_mpi_taken_from_tuned(c, vars, var); !taken.empty()) {
    f.refused = taken;
    return f;
  }
  f.cautions.push_back(
      "Open MPI cannot be made to fail instead of falling back: its algorithms switch to another "
      "internally for some sizes (e.g. ring allreduce below one element per rank); the sizes where "
      "Open MPI 4.1 does so are left out");
  return f;
}

}  // namespace

const ForcedAlgorithm& forced_mpi_algorithm(Collective c) {
  static std::map<Collective, ForcedAlgorithm> cache;
  auto it = cache.find(c);
  if (it == cache.end()) {
    const MpiFamily family = mpi_library().family;
    it = cache
             .emplace(c, family == MpiFamily::mpich      ? mpich_forced(c)
                         : family == MpiFamily::open_mpi ? open_mpi_forced(c)
                                                         : ForcedAlgorithm{})
             .first;
  }
  return it->second;
}

std::string mpi_baseline_row_name(Collective c) {
  const std::string& forced = forced_mpi_algorithm(c).algorithm;
  if (!forced.empty()) return "mpi[" + forced + "]";
  return mpi_tuning_file_request().path.empty() ? "mpi" : "mpi[tuned]";
}

std::string result_row_name(const AlgorithmEntry& a) {
  return a.is_baseline_of("mpi") && a.name == "mpi" ? mpi_baseline_row_name(a.collective) : a.name;
}

namespace {

TuningFileRequest mpich_tuning_request() {
  TuningFileRequest t;
  const std::string var = "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE";
  const auto vars = read_control_variables({var});
  // MPICH 4.0.2's MPI_T reads this string as empty; its value is the environment's.
  t.path = vars.count(var) && !vars.at(var).text.empty() ? vars.at(var).text : env(var);
  if (!t.path.empty()) t.setting = var + "=" + t.path;
  return t;
}

TuningFileRequest open_mpi_tuning_request() {
  TuningFileRequest t;
  const std::string file = "coll_tuned_dynamic_rules_filename", dynamic = "coll_tuned_use_dynamic_rules";
  std::vector<std::string> names = open_mpi_selection_variables();
  names.insert(names.end(), {file, dynamic});
  const auto vars = read_control_variables(names);
  if (!vars.count(file) || vars.at(file).text.empty()) return t;
  t.path = vars.at(file).text;
  t.setting = file + "=" + t.path;
  if (!vars.count(dynamic) || vars.at(dynamic).number == 0) {
    t.ignored = "Open MPI ignores " + file + " unless " + dynamic + " is true (set OMPI_MCA_" + dynamic + "=1)";
    return t;
  }
  for (Collective c : kAllCollectives)
    if (c != Collective::alltoallv)
      if (std::string taken = open_mpi_taken_from_tuned(c, vars, "the rules file"); !taken.empty()) {
        t.ignored = taken;
        break;
      }
  return t;
}

}  // namespace

const TuningFileRequest& mpi_tuning_file_request() {
  static const TuningFileRequest request = [] {
    TuningFileRequest t = mpi_library().family == MpiFamily::mpich      ? mpich_tuning_request()
                          : mpi_library().family == MpiFamily::open_mpi ? open_mpi_tuning_request()
                                                                        : TuningFileRequest{};
    if (std::ifstream in(t.path, std::ios::binary); !t.path.empty() && in) {
      std::ostringstream text;
      text << in.rdbuf();
      t.readable = true;
      t.text = text.str();
      char digest[17];
      std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(fnv1a(t.text)));
      t.fnv1a = digest;
    }
    return t;
  }();
  return request;
}

AlgorithmChoices mpi_algorithm_choices(Collective c) {
  AlgorithmChoices out;
  switch (mpi_library().family) {
    case MpiFamily::mpich: {
      out.settings = {std::string(mpi_names(c).mpich_algorithm_cvar) + "={}", "MPIR_CVAR_COLLECTIVE_FALLBACK=error",
                      "MPIR_CVAR_DEVICE_COLLECTIVES=none"};
      // From the traits row: MPICH's MPI_T variables are plain integers, without the names.
      std::istringstream names{std::string(mpi_names(c).mpich_algorithms)};
      for (std::string name; names >> name;) out.algorithms.push_back(name);
      break;
    }
    case MpiFamily::open_mpi: {
      const std::string var = open_mpi_algorithm_variable(c);
      const auto vars = read_control_variables({var});
      if (!vars.count(var)) break;
      out.settings = {"OMPI_MCA_coll_tuned_use_dynamic_rules=1", "OMPI_MCA_" + var + "={}", "OMPI_MCA_coll=^han"};
      for (const auto& [n, name] : offered(vars.at(var))) out.algorithms.push_back(name);
      break;
    }
    case MpiFamily::other: break;
  }
  return out;
}

std::vector<std::string> mpi_tuning_file_settings() {
  switch (mpi_library().family) {
    case MpiFamily::mpich: return {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={}"};
    // coll/han would take allreduce, bcast, reduce, gather and allgather from coll/tuned.
    case MpiFamily::open_mpi:
      return {"OMPI_MCA_coll_tuned_use_dynamic_rules=1", "OMPI_MCA_coll_tuned_dynamic_rules_filename={}",
              "OMPI_MCA_coll=^han"};
    case MpiFamily::other: break;
  }
  return {};
}

}  // namespace collbench
