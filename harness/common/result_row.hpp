#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "harness/common/stats.hpp"

namespace collbench {

// One measured (size, algorithm) pair. Its fields, in order, are the CSV columns and
// the keys of a JSON row, so both formats always agree.
struct ResultRow {
  std::string collective, algorithm, transport;
  int ranks = 0;
  std::size_t bytes = 0, count = 0;
  std::string dtype, op;
  int root = 0;
  int iters = 0;  // timed calls in all (iterations x rounds)
  Summary time_us;
  double algbw_gbps = 0, busbw_gbps = 0;
  std::int64_t errors = -1;  // -1: not checked
  bool in_place = false;
  int warmup = 0, rounds = 1;
  std::string timing;
  int nodes = 1, ranks_per_node = 1;  // the topology hierarchical algorithms used
  std::size_t segment_bytes = 0;      // pipelined algorithms; 0 for the others
  std::vector<double> round_mean_us;  // JSON only: the spread between rounds
  // Columns of one kind of run (the parameter server's), after the common ones; the
  // CSV writer is told their names up front so every row has the same columns.
  std::vector<std::pair<std::string, nlohmann::json>> extra;
  nlohmann::json details;  // JSON only: per-server and distribution data
};

using Fields = std::vector<std::pair<std::string, nlohmann::json>>;
Fields csv_fields(const ResultRow& row);
nlohmann::json to_json(const ResultRow& row);

}  // namespace collbench
