#include "harness/tune/mpich_selection.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "collectives/transport/mpi/mpi_names.hpp"
#include "collectives/transport/mpi/mpich_switch.hpp"

namespace collbench {
namespace {

using Json = nlohmann::ordered_json;

// How MPICH sizes a call of each tunable collective (csel.c's get_avg_msgsize and
// get_total_msgsize against what run's -b/-e count) and the conditions the measurement
// ran under, which a choice must not outlive.
enum class Unit { bytes, bytes_per_peer, elements };
struct MpichCollective {
  Collective id;
  const char* key;   // "collective=<key>"
  const char* func;  // MPIR_<func>_intra_<algorithm>
  const char* size_operator;
  Unit unit;
  bool commutative_guard, built_in_guard, not_in_place_guard;
};
constexpr std::array<MpichCollective, 7> kCollectives{{
    {Collective::allreduce, "allreduce", "Allreduce", "avg_msg_size", Unit::bytes, true, true, false},
    {Collective::broadcast, "bcast", "Bcast", "avg_msg_size", Unit::bytes, false, false, false},
    {Collective::reduce, "reduce", "Reduce", "avg_msg_size", Unit::bytes, true, true, false},
    // csel.c counts a gather's total in elements (it multiplies the count, not the bytes).
    {Collective::gather, "gather", "Gather", "total_msg_size", Unit::elements, false, false, false},
    {Collective::allgather, "allgather", "Allgather", "total_msg_size", Unit::bytes, false, false, false},
    {Collective::reduce_scatter, "reduce_scatter_block", "Reduce_scatter_block", "total_msg_size", Unit::bytes, true,
     false, false},
    {Collective::alltoall, "alltoall", "Alltoall", "avg_msg_size", Unit::bytes_per_peer, false, false, true},
}};

const MpichCollective* find_collective(Collective c) {
  for (const MpichCollective& m : kCollectives)
    if (m.id == c) return &m;
  return nullptr;
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// The threshold MPICH compares for a band edge in run's bytes (x < edge).
std::size_t threshold(const MpichCollective& m, std::size_t edge, int ranks, std::size_t element_bytes) {
  switch (m.unit) {
    case Unit::bytes: return edge;
    case Unit::bytes_per_peer: return ceil_div(edge, static_cast<std::size_t>(ranks));
    case Unit::elements: return ceil_div(edge, element_bytes);
  }
  return edge;
}

// `hierarchical`: whether the communicator has MPICH's node hierarchy (decided outside,
// with the communicator's other conditions).
Json algorithm_branch(const MpichCollective& m, const std::string& algorithm, int ranks, bool hierarchical,
                      const Json& fallback) {
  const MpichRestrictions r = mpich_restrictions(m.id, algorithm);
  if (r.parent_comm && !hierarchical) return fallback;
  if (r.power_of_two && (ranks & (ranks - 1)) != 0)
    throw std::invalid_argument("MPICH's " + algorithm + " " + m.key + " needs a power-of-two communicator, not " +
                                std::to_string(ranks) + " ranks");
  Json leaf = Json::object();
  leaf["algorithm=" + mpich_container(m.id, algorithm)] = Json::object();
  if (r.count_ge_pof2) leaf = Json{{"count<pow2", fallback}, {"count=any", leaf}};
  return leaf;
}

Json size_ladder(const MpichCollective& m, const CommunicatorChoices& comm, std::size_t element_bytes,
                 bool hierarchical, const Json& fallback) {
  Json ladder = Json::object();
  for (const SizeBand& band : size_bands(comm)) {
    const Json branch =
        band.algorithm.empty() ? fallback : algorithm_branch(m, band.algorithm, comm.ranks, hierarchical, fallback);
    if (!band.below) {
      ladder[std::string(m.size_operator) + "=any"] = branch;
      break;
    }
    const std::size_t t = threshold(m, *band.below, comm.ranks, element_bytes);
    if (t > static_cast<std::size_t>(INT_MAX))
      throw std::invalid_argument(std::string("MPICH reads thresholds as int: ") + m.key + " at " +
                                  std::to_string(*band.below) + " bytes is beyond its range");
    ladder[std::string(m.size_operator) + "<" + std::to_string(t)] = branch;
  }
  return ladder;
}

// The measurement's conditions around a ladder. MPICH 4.0 reads "=any" only after size
// and hierarchy conditions (tried one by one): a yes/no condition needs both of its
// cases spelled out.
Json guarded(const MpichCollective& m, Json tree, const Json& fallback) {
  if (m.not_in_place_guard) tree = Json{{"is_sendbuf_inplace=no", tree}, {"is_sendbuf_inplace=yes", fallback}};
  if (m.built_in_guard) tree = Json{{"is_op_built_in=yes", tree}, {"is_op_built_in=no", fallback}};
  if (m.commutative_guard) tree = Json{{"is_commutative=yes", tree}, {"is_commutative=no", fallback}};
  return tree;
}

bool per_call_key(const std::string& key);  // a condition csel.c tests per call, not per communicator
bool is_container(const std::string& key);  // "algorithm=..." or "composition=..."

// The library's tree with each per-call subtree (where it stops testing the
// communicator) replaced by what `at_call` makes of it, so that communicator conditions
// stay above per-call ones, where MPICH settles them once per communicator: below a
// per-call condition MPICH 4.0.2 tests comm_size<N as comm_size<=N (tried, with an
// algorithm that asserts when reached).
Json lift(const Json& tree, const std::function<Json(const Json&)>& at_call) {
  if (!tree.is_object() || tree.empty() || per_call_key(tree.begin().key()) || is_container(tree.begin().key()))
    return at_call(tree);
  Json out = Json::object();
  for (auto it = tree.begin(); it != tree.end(); ++it) out[it.key()] = lift(it.value(), at_call);
  return out;
}

bool chooses_any(const CommunicatorChoices& comm) {
  return std::any_of(comm.sizes.begin(), comm.sizes.end(), [](const SizeChoice& s) { return !s.algorithm.empty(); });
}

// Each measured communicator size exactly where the file chooses an algorithm at some
// size, the library's own tree around it. A size that keeps the library's choice
// everywhere gets no branch: every test csel.c walks costs every call (a forced call
// skips them all).
Json tuned_intra(const MpichCollective& m, const CollectiveChoices& cc, std::size_t element_bytes,
                 const Json& library_intra) {
  Json by_size = Json::object();
  for (const CommunicatorChoices& comm : cc.communicators) {
    if (!chooses_any(comm)) continue;
    by_size["comm_size<" + std::to_string(comm.ranks)] = library_intra;
    const auto ladder = [&](bool hierarchical) {
      return lift(library_intra, [&](const Json& own) {
        return guarded(m, size_ladder(m, comm, element_bytes, hierarchical, own), own);
      });
    };
    const bool needs_hierarchy = std::any_of(comm.sizes.begin(), comm.sizes.end(), [&](const SizeChoice& s) {
      return !s.algorithm.empty() && mpich_restrictions(m.id, s.algorithm).parent_comm;
    });
    by_size["comm_size<=" + std::to_string(comm.ranks)] =
        needs_hierarchy ? Json{{"comm_hierarchy=parent", ladder(true)}, {"comm_hierarchy=any", ladder(false)}}
                        : ladder(false);
  }
  by_size["comm_size=any"] = library_intra;
  return by_size;
}

}  // namespace

bool mpich_tunable(Collective c) { return find_collective(c) != nullptr; }

std::string mpich_container(Collective c, const std::string& algorithm) {
  const MpichCollective* m = find_collective(c);
  if (!m)
    throw std::invalid_argument("collbench cannot write MPICH's selection for " + std::string(collective_name(c)));
  return std::string("MPIR_") + m->func + (algorithm == "nb" ? "_allcomm_" : "_intra_") + algorithm;
}

namespace {

// One condition of the tree for a call, as csel.c would decide it; nullopt where
// collbench does not know the answer (then the tree's choice is not known either).
std::optional<bool> holds(const std::string& key, const MpichCollective& m, int ranks, int nodes, int per_node,
                          std::size_t bytes, std::size_t element_bytes) {
  const auto eq = key.find('=');
  const auto lt = key.find('<');
  if (eq == std::string::npos && lt == std::string::npos) return std::nullopt;
  const std::string name = key.substr(0, std::min(eq, lt));
  const std::string value = key.substr(std::min(eq, lt) + (key.compare(std::min(eq, lt), 2, "<=") == 0 ? 2 : 1));
  if (value == "any") return true;
  const bool le = key.compare(name.size(), 2, "<=") == 0, less = !le && lt == name.size();
  const auto compare = [&](std::size_t x) -> std::optional<bool> {
    if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    const std::size_t n = std::stoull(value);
    return le ? x <= n : x < n;
  };
  const bool reduction = m.commutative_guard;  // the measured call: a commutative built-in op, not in place
  if (name == "comm_type") return value == "intra";
  if (name == "comm_size") {
    if (le || less) return compare(static_cast<std::size_t>(ranks));
    if (value == "pow2") return (ranks & (ranks - 1)) == 0;
    if (value == "node_comm_size") return nodes == 1;
    return std::nullopt;
  }
  if (name == "comm_hierarchy" && value == "parent") return mpich_node_hierarchy(nodes, per_node);
  if (name == m.size_operator && (le || less)) return compare(threshold(m, bytes, ranks, element_bytes));
  if (name == "count" &&
      (m.id == Collective::allreduce || m.id == Collective::reduce || m.id == Collective::broadcast)) {
    const std::size_t count = bytes / element_bytes;
    if (value == "pow2" && less) return count < mpich_pof2(ranks);
    if (le || less) return compare(count);
    return std::nullopt;
  }
  if (name == "is_commutative" || name == "is_op_built_in")
    return reduction ? std::optional{value == "yes"} : std::nullopt;
  if (name == "is_sendbuf_inplace" || name == "is_multi_threaded") return value == "no";
  return std::nullopt;
}

}  // namespace

std::string mpich_library_choice(const Json& library_default, Collective c, int ranks, int nodes, int ranks_per_node,
                                 std::size_t bytes, std::size_t element_bytes) {
  const MpichCollective* m = find_collective(c);
  const std::string key = m ? std::string("collective=") + m->key : "";
  if (!m || element_bytes == 0 || !library_default.contains(key)) return "";
  const Json* node = &library_default[key];
  for (;;) {
    const Json* next = nullptr;
    for (const auto& [k, child] : node->items()) {
      if (k.rfind("algorithm=", 0) == 0) {
        std::istringstream names{std::string(mpi_names(c).mpich_algorithms)};
        for (std::string a; names >> a;)
          if (k == "algorithm=" + mpich_container(c, a)) return a;
        return "";
      }
      const std::optional<bool> h = holds(k, *m, ranks, nodes, ranks_per_node, bytes, element_bytes);
      if (!h) return "";
      if (*h) {
        next = &child;
        break;
      }
    }
    if (!next) return "";
    node = next;
  }
}

std::string write_mpich_selection(const Json& library_default, const std::vector<CollectiveChoices>& choices,
                                  std::size_t element_bytes, const std::vector<std::string>& notes) {
  Json out = library_default;
  for (const CollectiveChoices& cc : choices) {
    const MpichCollective* m = find_collective(cc.collective);
    if (!m)
      throw std::invalid_argument("MPICH's selection file cannot tune " + std::string(collective_name(cc.collective)));
    const std::string key = std::string("collective=") + m->key;
    if (!out.contains(key) || !out[key].contains("comm_type=intra"))
      throw std::invalid_argument("the library's own selection has no intra-communicator branch for " + key +
                                  "; collbench cannot splice its choices into it");
    if (std::none_of(cc.communicators.begin(), cc.communicators.end(), chooses_any)) continue;
    const Json fallback = out[key]["comm_type=intra"];
    out[key]["comm_type=intra"] = tuned_intra(*m, cc, element_bytes, fallback);
  }
  std::string text = "/*\n";
  for (const std::string& n : notes) {
    if (n.find("*/") != std::string::npos) throw std::invalid_argument("a note may not contain */");
    text += " * " + n + "\n";
  }
  return text + " */\n" + out.dump(2) + "\n";
}

namespace {

// csel.c's operators: the key's operator up to its value, and which collectives define
// the message-dependent ones (the comm-dependent ones hold for every collective).
const std::set<std::string> kAvg{"allreduce", "iallreduce", "bcast",    "ibcast",
                                 "reduce",    "ireduce",    "alltoall", "ialltoall"};
const std::set<std::string> kTotal{"allreduce",       "bcast",
                                   "reduce",          "alltoall",
                                   "alltoallv",       "alltoallw",
                                   "allgather",       "allgatherv",
                                   "gather",          "scatter",
                                   "reduce_scatter",  "reduce_scatter_block",
                                   "iallreduce",      "ibcast",
                                   "ireduce",         "ialltoall",
                                   "ialltoallv",      "ialltoallw",
                                   "iallgather",      "iallgatherv",
                                   "ireduce_scatter", "ireduce_scatter_block",
                                   "igather",         "iscatter"};
const std::set<std::string> kCount{"bcast",
                                   "allreduce",
                                   "iallreduce",
                                   "reduce",
                                   "ireduce",
                                   "allgather",
                                   "allgatherv",
                                   "reduce_scatter",
                                   "reduce_scatter_block",
                                   "iallgather",
                                   "iallgatherv",
                                   "ireduce_scatter",
                                   "ireduce_scatter_block"};
const std::set<std::string> kCommutative{"allreduce",
                                         "iallreduce",
                                         "reduce",
                                         "ireduce",
                                         "reduce_scatter",
                                         "ireduce_scatter",
                                         "reduce_scatter_block",
                                         "ireduce_scatter_block"};
const std::set<std::string> kBuiltIn{"allreduce", "iallreduce", "reduce", "ireduce"};
const std::set<std::string> kInPlace{"alltoall", "alltoallv", "alltoallw", "ialltoall", "ialltoallv", "ialltoallw"};
const std::set<std::string> kBlockRegular{"reduce_scatter", "ireduce_scatter"};

bool is_integer(const std::string& s) {
  if (s.empty() || s.size() > 10) return false;
  for (char ch : s)
    if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
  return std::stoll(s) <= INT_MAX;
}

struct Operator {
  bool known = false, boolean = false, any = false, per_call = false;
  std::string family;  // for booleans: the part before '='
  const std::set<std::string>* only_for = nullptr;
};

Operator parse_operator(const std::string& key) {
  Operator op;
  const std::size_t eq = key.find('=');
  if (eq != std::string::npos && key.compare(eq, std::string::npos, "=any") == 0) {
    // MPICH 4.0.2 takes "=any" after these only (tried one by one); is_*=any and
    // comm_type=any are unknown keys to it.
    const std::string family = key.substr(0, eq);
    op.known = family == "comm_size" || family == "comm_hierarchy" || family == "count" || family == "avg_msg_size" ||
               family == "total_msg_size";
    op.any = true;
    op.per_call = family == "count" || family == "avg_msg_size" || family == "total_msg_size";
    return op;
  }
  const auto prefixed = [&](const char* p) { return key.rfind(p, 0) == 0; };
  const auto valued = [&](const char* p) { return prefixed(p) && is_integer(key.substr(std::string(p).size())); };
  const auto boolean = [&](const char* family, std::initializer_list<const char*> values,
                           const std::set<std::string>* only) {
    for (const char* v : values)
      if (key == std::string(family) + "=" + v) {
        op = {true, true, false, only != nullptr || std::string(family) == "is_multi_threaded", family, only};
        return true;
      }
    return false;
  };
  if (boolean("is_multi_threaded", {"yes", "no"}, nullptr) || boolean("comm_type", {"intra", "inter"}, nullptr) ||
      boolean("comm_hierarchy", {"parent", "node_roots", "node", "flat"}, nullptr) ||
      boolean("is_node_consecutive", {"yes", "no"}, nullptr) ||
      boolean("is_commutative", {"yes", "no"}, &kCommutative) || boolean("is_op_built_in", {"yes", "no"}, &kBuiltIn) ||
      boolean("is_sendbuf_inplace", {"yes", "no"}, &kInPlace) ||
      boolean("is_block_regular", {"yes", "no"}, &kBlockRegular))
    return op;
  if (key == "comm_size=pow2" || key == "comm_size=node_comm_size" || valued("comm_size<=") || valued("comm_size<") ||
      valued("comm_avg_ppn<=") || valued("comm_avg_ppn<"))
    op.known = true;
  else if (valued("avg_msg_size<=") || valued("avg_msg_size<"))
    op = {true, false, false, true, "", &kAvg};
  else if (valued("total_msg_size<=") || valued("total_msg_size<"))
    op = {true, false, false, true, "", &kTotal};
  else if (valued("count<=") || key == "count<pow2")
    op = {true, false, false, true, "", &kCount};
  return op;
}

// MPIR_Reduce_scatter_block_intra_pairwise -> reduce_scatter_block ("" for other names).
std::string collective_of_container(const std::string& name) {
  if (name.rfind("MPIR_", 0) != 0) return "";
  for (const char* kind : {"_intra_", "_inter_", "_allcomm_"})
    if (const std::size_t at = name.find(kind); at != std::string::npos) {
      std::string func = name.substr(5, at - 5);
      for (char& ch : func) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      return func;
    }
  return "";
}

bool per_call_key(const std::string& key) { return parse_operator(key).per_call; }

bool is_container(const std::string& key) {
  return key.rfind("algorithm=", 0) == 0 || key.rfind("composition=", 0) == 0;
}

// `below_call`: a per-call condition (message size, operation) is above this node.
void check_node(const Json& node, const std::string& coll, const std::string& path, bool below_call,
                const std::set<std::string>& known, std::vector<std::string>& problems) {
  if (!node.is_object() || node.empty()) {
    problems.push_back(path + ": expected a non-empty object (MPICH asserts)");
    return;
  }
  const std::string first = node.begin().key();
  if (is_container(first)) {
    if (node.size() > 1) problems.push_back(path + ": an algorithm must be the only key of its object");
    const std::string name = first.substr(first.find('=') + 1);
    if (!known.count(name))
      problems.push_back(path + ": unknown algorithm " + name + " (undefined behaviour in MPICH)");
    const std::string func = collective_of_container(name);
    if (!func.empty() && func != coll) problems.push_back(path + ": " + name + " is not an algorithm of " + coll);
    return;
  }
  std::map<std::string, std::set<std::string>> booleans;
  bool any_seen = false;
  std::size_t i = 0;
  for (auto it = node.begin(); it != node.end(); ++it, ++i) {
    const std::string& key = it.key();
    const std::string here = path + " > " + key;
    if (is_container(key)) {
      problems.push_back(here + ": an algorithm must be the only key of its object");
      continue;
    }
    const Operator op = parse_operator(key);
    if (!op.known) {
      problems.push_back(here + ": unknown key (MPICH asserts)");
      continue;
    }
    if (op.only_for && !op.only_for->count(coll))
      problems.push_back(here + ": not defined for " + coll + " (MPICH asserts when it is evaluated)");
    if (below_call && key.rfind("comm_size<", 0) == 0 && key.rfind("comm_size<=", 0) != 0)
      problems.push_back(here +
                         ": below a per-call condition MPICH 4.0.2 tests comm_size<N as comm_size<=N (tried); "
                         "put communicator sizes first");
    if (any_seen) problems.push_back(here + ": follows an \"=any\" key and is never reached (MPICH asserts)");
    if (op.any) any_seen = true;
    if (op.boolean) booleans[op.family].insert(key);
    const bool last = i + 1 == node.size();
    if (!op.any && !op.boolean && last)
      problems.push_back(here + ": a threshold needs a following key, ending with \"=any\" (MPICH asserts)");
    check_node(it.value(), coll, here, below_call || op.per_call, known, problems);
  }
  for (const auto& [family, keys] : booleans)
    if (!any_seen && keys.size() < 2)
      problems.push_back(path + ": " + *keys.begin() +
                         " has no other case after it (a call that fails it finds no algorithm and crashes)");
}

}  // namespace

std::set<std::string> mpich_known_containers(const Json& library_default) {
  std::set<std::string> known;
  const std::function<void(const Json&)> walk = [&](const Json& j) {
    if (!j.is_object()) return;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (is_container(it.key())) known.insert(it.key().substr(it.key().find('=') + 1));
      walk(it.value());
    }
  };
  walk(library_default);
  for (const MpichCollective& m : kCollectives) {
    std::istringstream names{std::string(mpi_names(m.id).mpich_algorithms)};
    for (std::string a; names >> a;) known.insert(mpich_container(m.id, a));
  }
  return known;
}

namespace {

// A problem as "collective, the last two conditions of its path, what": the same flaw in a
// copy of the library's own branch, wherever the copy sits.
std::string signature(const std::string& problem) {
  const std::size_t colon = problem.find(": ");
  std::vector<std::string> parts;
  std::istringstream path(problem.substr(0, colon));
  for (std::string part; std::getline(path, part, '>');) parts.push_back(part);
  std::string sig = parts.front();
  for (std::size_t i = parts.size() > 2 ? parts.size() - 2 : 1; i < parts.size(); ++i) sig += ">" + parts[i];
  return sig + problem.substr(colon == std::string::npos ? problem.size() : colon);
}

std::vector<std::string> tree_problems(const Json& file, const Json& library_default,
                                       const std::set<std::string>& known) {
  std::vector<std::string> problems;
  for (auto it = file.begin(); it != file.end(); ++it) {
    const std::string& key = it.key();
    if (key.rfind("collective=", 0) != 0) {
      problems.push_back(key + ": the top level holds only \"collective=...\" keys");
      continue;
    }
    const std::string coll = key.substr(11);
    if (!library_default.contains(key)) problems.push_back(key + ": a collective this MPICH does not know");
    check_node(it.value(), coll, key, false, known, problems);
  }
  for (auto it = library_default.begin(); it != library_default.end(); ++it)
    if (!file.contains(it.key())) problems.push_back(it.key() + ": missing (MPICH crashes when a program calls it)");
  return problems;
}

}  // namespace

std::vector<std::string> check_mpich_selection(const std::string& text, const Json& library_default,
                                               const std::set<std::string>& known) {
  Json file;
  try {
    file = Json::parse(text, nullptr, true, /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    return {std::string("not JSON: ") + e.what()};
  }
  if (!file.is_object()) return {"the file must be a JSON object of \"collective=...\" keys"};
  // What the library's own tree already does (4.0.2's alltoall tests comm_size<8 below
  // is_sendbuf_inplace) is the library's choice, kept as it is, not the file's problem.
  std::set<std::string> own;
  for (const std::string& p : tree_problems(library_default, library_default, known)) own.insert(signature(p));
  std::vector<std::string> problems;
  for (const std::string& p : tree_problems(file, library_default, known))
    if (!own.count(signature(p))) problems.push_back(p);
  return problems;
}

}  // namespace collbench
