#include "harness/tune/open_mpi_rules.hpp"

#include "collectives/transport/mpi/open_mpi_switch.hpp"

#include <cctype>
#include <optional>
#include <set>
#include <stdexcept>

namespace collbench {

int open_mpi_collective_id(Collective c) {
  switch (c) {  // Open MPI's COLLTYPE_T (ompi/mca/coll/base/coll_base_functions.h)
    case Collective::allgather: return 0;
    case Collective::allreduce: return 2;
    case Collective::alltoall: return 3;
    case Collective::broadcast: return 7;
    case Collective::gather: return 9;
    case Collective::reduce: return 11;
    case Collective::reduce_scatter: return 13;  // MPI_Reduce_scatter_block
    case Collective::alltoallv: return -1;       // sized by nothing but the communicator
  }
  return -1;
}

std::vector<Composition> open_mpi_compositions() {
  return {{Collective::allreduce, "nonoverlapping", {Collective::reduce, Collective::broadcast}},
          {Collective::allgather, "linear", {Collective::gather, Collective::broadcast}}};
}

namespace {

constexpr long kCollectiveCount = 22;  // COLLCOUNT

void rule_line(std::string& out, std::size_t msg_size, int algorithm, int faninout, int segsize,
               const std::string& comment) {
  out += "      " + std::to_string(msg_size) + " " + std::to_string(algorithm) + " " + std::to_string(faninout) + " " +
         std::to_string(segsize) + "  # " + comment + "\n";
}

void default_comm(std::string& out, std::size_t comm_size, const std::string& why) {
  out += "    " + std::to_string(comm_size) + "  # communicator size: " + why + "\n    1\n";
  rule_line(out, 0, 0, 0, 0, "the library's own choice");
}

}  // namespace

std::string write_open_mpi_rules(const std::vector<CollectiveChoices>& choices,
                                 const std::map<Collective, OpenMpiAlgorithms>& algorithms,
                                 const std::vector<std::string>& notes) {
  std::string out;
  for (const std::string& n : notes) out += "# " + n + "\n";
  out += std::to_string(choices.size()) + "  # collectives\n";
  for (const CollectiveChoices& cc : choices) {
    const std::string name(collective_name(cc.collective));
    const int id = open_mpi_collective_id(cc.collective);
    const auto table = algorithms.find(cc.collective);
    if (id < 0 || table == algorithms.end()) throw std::invalid_argument("Open MPI's rules file cannot tune " + name);
    // Each measured communicator size exactly: the library's choice below it and from the
    // next size up (Open MPI takes the last size at or below the communicator's).
    std::vector<std::string> comms;
    std::size_t entries = 0;
    std::string body;
    std::optional<int> reset_at;
    if (cc.communicators.front().ranks > 0) default_comm(body, 0, "below every measured one"), ++entries;
    for (const CommunicatorChoices& comm : cc.communicators) {
      if (reset_at && *reset_at < comm.ranks)
        default_comm(body, static_cast<std::size_t>(*reset_at), "not measured"), ++entries;
      const std::vector<SizeBand> bands = size_bands(comm);
      body += "    " + std::to_string(comm.ranks) + "  # communicator size: measured\n    " +
              std::to_string(bands.size()) + "\n";
      for (const SizeBand& b : bands) {
        if (b.algorithm.empty()) {
          rule_line(body, b.from, 0, 0, 0, "the library's own choice");
          continue;
        }
        // mpi[NAME:seg=BYTES] ran NAME with its own segment; mpi[NAME] with the table's.
        const SegmentedAlgorithm named = split_segmented_name(b.algorithm);
        const auto alg = table->second.ids.find(named.algorithm);
        if (alg == table->second.ids.end())
          throw std::invalid_argument("this Open MPI has no " + name + " algorithm named " + named.algorithm);
        const int segsize = named.segment_bytes ? static_cast<int>(*named.segment_bytes) : table->second.segsize;
        rule_line(body, b.from, alg->second, table->second.faninout, segsize, b.algorithm);
      }
      ++entries;
      reset_at = comm.ranks + 1;
    }
    default_comm(body, static_cast<std::size_t>(*reset_at), "above every measured one");
    ++entries;
    out += "  " + std::to_string(id) + "  # " + name + "\n  " + std::to_string(entries) + "  # communicator sizes\n" +
           body;
  }
  return out;
}

namespace {

// The integers as Open MPI's reader takes them (fscanf %li after skipping anything not a
// digit; # to the end of the line), with what it would take silently noted as problems.
std::vector<long> tokens(const std::string& text, std::vector<std::string>& problems) {
  std::vector<long> out;
  int line = 1;
  for (std::size_t i = 0; i < text.size();) {
    const char ch = text[i];
    if (ch == '\n') ++line;
    if (ch == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      std::size_t end = i;
      while (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end]))) ++end;
      const std::string word = text.substr(i, end - i);
      bool digits = true;
      for (char d : word) digits &= std::isdigit(static_cast<unsigned char>(d)) != 0;
      if (!digits || (word.size() > 1 && word[0] == '0'))
        problems.push_back("line " + std::to_string(line) + ": " + word +
                           " is not a plain decimal number (Open MPI reads a leading 0 as octal, 0x as hex)");
      if (word.size() > 18)
        problems.push_back("line " + std::to_string(line) + ": " + word + " is too large");
      else if (digits)
        out.push_back(std::stol(word));
      i = end;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(ch)))
      problems.push_back("line " + std::to_string(line) + ": '" + std::string(1, ch) +
                         "' outside a comment (Open MPI skips it silently; a minus sign is lost)");
    ++i;
  }
  return out;
}

}  // namespace

OpenMpiRules read_open_mpi_rules(const std::string& text, const std::map<long, long>& largest_algorithm) {
  OpenMpiRules r;
  const std::vector<long> t = tokens(text, r.problems);
  std::size_t at = 0;
  const auto next = [&](const char* what) -> std::optional<long> {
    if (at < t.size()) return t[at++];
    r.problems.push_back(std::string("the file ends where Open MPI expects ") + what +
                         " (it would discard the whole file)");
    return std::nullopt;
  };
  const auto ncol = next("the number of collectives");
  if (!ncol) return r;
  if (*ncol > kCollectiveCount)
    r.problems.push_back("more collectives than Open MPI has (" + std::to_string(*ncol) + ")");
  for (long c = 0; c < *ncol && r.problems.empty(); ++c) {
    const auto id = next("a collective id");
    if (!id) return r;
    if (*id >= kCollectiveCount) r.problems.push_back("collective id " + std::to_string(*id) + " does not exist");
    if (r.collectives.count(*id)) r.problems.push_back("collective id " + std::to_string(*id) + " given twice");
    std::vector<OpenMpiCommRules>& comms = r.collectives[*id];
    const auto ncomm = next("the number of communicator sizes");
    if (!ncomm) return r;
    for (long k = 0; k < *ncomm; ++k) {
      OpenMpiCommRules cr;
      const auto size = next("a communicator size"), nmsg = size ? next("the number of message rules") : std::nullopt;
      if (!nmsg) return r;
      cr.comm_size = *size;
      if (!comms.empty() && cr.comm_size <= comms.back().comm_size)
        r.problems.push_back("collective " + std::to_string(*id) + ": communicator sizes must ascend");
      for (long m = 0; m < *nmsg; ++m) {
        OpenMpiRule rule;
        const auto v = next("a message rule");
        const auto a = v ? next("an algorithm") : std::nullopt;
        const auto f = a ? next("a fan-in/out") : std::nullopt;
        const auto s = f ? next("a segment size") : std::nullopt;
        if (!s) return r;
        rule = {*v, *a, *f, *s};
        const std::string where = "collective " + std::to_string(*id) + ", communicator size " +
                                  std::to_string(cr.comm_size) + ", message size " + std::to_string(rule.msg_size);
        if (m == 0 && rule.msg_size != 0)
          r.problems.push_back(where + ": the first message rule must be for size 0 (Open MPI discards the file)");
        if (!cr.rules.empty() && rule.msg_size <= cr.rules.back().msg_size)
          r.problems.push_back(where + ": message sizes must ascend");
        if (const auto top = largest_algorithm.find(*id);
            top != largest_algorithm.end() && rule.algorithm > top->second)
          r.problems.push_back(where + ": algorithm " + std::to_string(rule.algorithm) + " does not exist (largest " +
                               std::to_string(top->second) + "; Open MPI does not check)");
        cr.rules.push_back(rule);
      }
      comms.push_back(std::move(cr));
    }
  }
  if (r.problems.empty() && at < t.size())
    r.problems.push_back(std::to_string(t.size() - at) +
                         " number(s) after the last collective's rules (Open MPI ignores them: a count is wrong)");
  return r;
}

}  // namespace collbench
