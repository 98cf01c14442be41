#pragma once
// Result rows. Every command's rows are Fields: named values in column order, so the
// CSV columns and the JSON keys always agree, and a command's columns are the names
// of the fields its row function produces (declared once, where they are filled).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "harness/common/stats.hpp"

namespace collbench {

using Fields = std::vector<std::pair<std::string, nlohmann::json>>;
std::vector<std::string> field_names(const Fields& fields);

// What a driver hands the result sink: the CSV/JSON fields, what only the JSON row
// carries, and the table line rank 0 prints (empty: none).
struct Row {
  Fields fields;
  nlohmann::json json_only = nlohmann::json::object();
  std::string line = {};
};
nlohmann::json to_json(const Row& row);

// One measured (size, algorithm) pair of a sweep (`run`), also the leading columns of
// a parameter-server row. Its fields, in order, are the CSV columns.
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
  std::string aggregate;              // how ranks' times were combined
  int checked_calls = 0;              // calls whose results were checked (per rank)
  int outliers = 0;                   // timed calls that stalled (stats.hpp's is_outlier)
  std::vector<double> round_mean_us;  // JSON only: the spread between rounds
  Fields extra;                       // a command's own columns after these (the parameter server's)
  nlohmann::json details;             // JSON only: per-server and distribution data
};

// The timing columns from `samples_us` (one per call or step): the summary, the
// outliers, algbw from row.bytes and busbw as algbw x `busbw_factor`.
void fill_timing(ResultRow& row, const std::vector<double>& samples_us, double busbw_factor);

Fields csv_fields(const ResultRow& row);  // the common columns, then `extra`
Row to_row(const ResultRow& row, std::string line = "");
nlohmann::json to_json(const ResultRow& row);

}  // namespace collbench
