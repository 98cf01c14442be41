#pragma once
// `collbench tune`'s choice: per collective, communicator size and message size, the MPI
// library's own algorithm to use, from forced-algorithm rows (mpi[NAME], as
// scripts/mpi_algorithms.sh measures them) beside the library's default (mpi). The
// measured fastest is chosen only where it beats the default beyond the run-to-run
// spread; anywhere else, and wherever the measurement cannot tell, the library keeps its
// own choice.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "collectives/collective.hpp"

namespace collbench {

// One row of a collbench result: the library's default ("mpi") or one of its algorithms
// forced ("mpi[NAME]"); other rows (collbench's own algorithms) are not choices.
struct TuneMeasurement {
  Collective collective = Collective::allreduce;
  int ranks = 0;
  std::size_t bytes = 0;  // as run's -b/-e count it (bytes column)
  std::string label;      // "mpi" or "mpi[NAME]"
  double p50_us = 0;
  std::vector<double> round_us;  // each round's mean (run --rounds)
  long long errors = 0;          // wrong elements; -1 unchecked
  int launch = 0;                // which launch (input file) measured it: launches pair up
  int nodes = 1, ranks_per_node = 1;
  double mean_us = 0;  // over every timed call: counts the slow calls a p50 hides
};

// What one measured size gets: a library algorithm, or the library's default ("").
struct SizeChoice {
  std::size_t bytes = 0;
  std::string algorithm;  // the library's name; "" keeps the default
  std::string reason;     // why, in a few words (printed and kept in the file's notes)
  double default_us = 0;  // p50 of the default
  std::string fastest;    // the fastest forced algorithm measured here ("" if none)
  double fastest_us = 0;
  // The algorithm the library's own selection runs here ("" where unknown): a forced
  // algorithm is judged against it forced too where it was measured, as a forced call
  // skips the selection that the default (and the tuned library) pays on every call.
  std::string library_algorithm;
};

struct CommunicatorChoices {
  int ranks = 0;
  std::vector<SizeChoice> sizes;  // ascending bytes
};

struct CollectiveChoices {
  Collective collective = Collective::allreduce;
  std::vector<CommunicatorChoices> communicators;  // ascending ranks
};

// The forced algorithm's name in a row label: "mpi[ring]" -> "ring"; nullopt for "mpi",
// "mpi[tuned]" (the library with a tuning file) and rows that are not the library's.
std::optional<std::string> forced_algorithm_of(const std::string& label);

// The choice at every (collective, communicator size, message size) the rows measured.
// The fastest forced algorithm (lowest median p50 over launches; ties to the name) is
// chosen where, over several launches, it beat the default measured in the same launch in
// most of them and in the medians; from one launch, where every round of it beat the
// default's fastest round (with fewer than two rounds there is no spread to beat). To
// beat is to be faster by p50, or slower by less than the spread of the two's round means
// (the larger; none with fewer than two rounds) and lower in mean: where calls run in two
// modes the rounds scatter and which mode a p50 lands on is chance, while the mean counts
// how often calls fall into the slow one. A size with no default row, or whose default
// has wrong results, is left out (the writers then apply the rule for sizes between
// measured ones); a forced algorithm with wrong (or unchecked) results in any launch is
// never chosen.
//
// `library`, where known, names the algorithm the library's own selection runs for a
// call (collective, ranks, nodes, bytes): where that is the fastest, the default is kept;
// elsewhere the fastest must beat that algorithm forced, where it was measured, rather
// than the default row (which adds the library's per-call selection, e.g. 0.05-0.15 us
// for MPICH 4.0.2 at 2 ranks).
using LibraryChoice =
    std::function<std::string(Collective, int ranks, int nodes, int ranks_per_node, std::size_t bytes)>;
std::vector<CollectiveChoices> choose_algorithms(const std::vector<TuneMeasurement>& rows,
                                                 const LibraryChoice& library = {});

// The choice in force at `bytes` under the rule both writers apply: a size takes the
// choice of the nearest measured size at or below it; below the smallest and above the
// largest measured size the library keeps its default ("").
std::string choice_at(const CommunicatorChoices& c, std::size_t bytes);

// The same rule as ranges of sizes, [from, below) (the last one unbounded), each with
// one choice, neighbours with the same choice merged: what both file formats write.
struct SizeBand {
  std::size_t from = 0;
  std::optional<std::size_t> below;  // none: to any size
  std::string algorithm;             // "" keeps the default
};
std::vector<SizeBand> size_bands(const CommunicatorChoices& c);

// An algorithm of the library made of other collectives that go through the library's
// selection again (Open MPI's allreduce nonoverlapping: a reduce, then a broadcast), so a
// tuning file's choices for those apply inside it, while its forced rows ran them at the
// library's own choice. The parts run at the composed call's bytes.
struct Composition {
  Collective collective = Collective::allreduce;
  std::string algorithm;
  std::vector<Collective> parts;
};

// Where a choice is such a composition and the file chooses an algorithm for one of its
// parts at any size the choice covers (same communicator size), the measurement does not
// describe what would run: the library keeps its default there, with the reason.
void keep_compositions_as_measured(std::vector<CollectiveChoices>& choices,
                                   const std::vector<Composition>& compositions);

}  // namespace collbench
