#pragma once
// Open MPI's coll/tuned dynamic rules file (coll_tuned_use_dynamic_rules=1,
// coll_tuned_dynamic_rules_filename), the classic format Open MPI 4.1 reads: integers
// with # comments; the number of collectives, then per collective its id, the number of
// communicator sizes, and per size the size, the number of message rules and each rule
// as MSGSIZE ALG FANINOUT SEGSIZE. Open MPI 4.1 uses the last communicator size and the
// last message rule at or below the call's (the first must be 0); algorithm 0 leaves the
// call to its fixed decision. A parse error discards the whole file silently and
// algorithm ids are not range-checked, so the checker here does both.
#include <map>
#include <string>
#include <vector>

#include "harness/tune/tune_choice.hpp"

namespace collbench {

// Open MPI's COLLTYPE_T id of a collective collbench can tune through the file (-1: none).
int open_mpi_collective_id(Collective c);

// Open MPI 4.1's algorithms made of other collectives called through the communicator's
// coll module again, where a rules file's choices apply (coll/base: allreduce
// nonoverlapping is a reduce and a bcast, allgather's linear a gather and a bcast).
std::vector<Composition> open_mpi_compositions();

// One collective's algorithms as the library numbers them (coll_tuned_<coll>_algorithm's
// enum through MPI_T) and the fan-in/out and segment size its forced runs used (a choice
// NAME:seg=BYTES, open_mpi_switch.hpp, ran with its own segment and is written with it).
struct OpenMpiAlgorithms {
  std::map<std::string, int> ids;  // name -> id (0, "ignore", not among them)
  int faninout = 0, segsize = 0;
};

// Throws std::invalid_argument for a choice the library does not number.
std::string write_open_mpi_rules(const std::vector<CollectiveChoices>& choices,
                                 const std::map<Collective, OpenMpiAlgorithms>& algorithms,
                                 const std::vector<std::string>& notes);

// The rules as Open MPI 4.1 reads them, or every problem that would make it discard the
// file (or run an algorithm that does not exist). `ids_per_collective`: COLLTYPE_T id ->
// the largest algorithm id the library has for it, where known.
struct OpenMpiRule {
  long msg_size = 0, algorithm = 0, faninout = 0, segsize = 0;
};
struct OpenMpiCommRules {
  long comm_size = 0;
  std::vector<OpenMpiRule> rules;
};
struct OpenMpiRules {
  std::map<long, std::vector<OpenMpiCommRules>> collectives;  // by COLLTYPE_T id
  std::vector<std::string> problems;
};
OpenMpiRules read_open_mpi_rules(const std::string& text, const std::map<long, long>& largest_algorithm);

}  // namespace collbench
