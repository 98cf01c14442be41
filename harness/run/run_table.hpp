#pragma once
// The table rank 0 prints for `run`: a header that states what was run, how it was
// timed and how bandwidth is defined, then one line per (size, algorithm). The
// parameter server's table shares the column header and the line.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "harness/common/result_row.hpp"
#include "harness/run/run_options.hpp"

namespace collbench {

// `metadata`: the run's, for ranks, hosts, library and oversubscription.
void print_table_header(const SweepSpec& s, const nlohmann::json& metadata);
// `of_bound`: with `run --bound`, a last column with the bound's share each row reaches.
void print_column_header(bool of_bound = false, bool of_memory_bound = false);
// `memory_column`: the table has of_mem (a row without a memory bound shows "-").
std::string table_line(const ResultRow& row, std::optional<double> time_vs_mpi,
                       std::optional<double> of_bound = std::nullopt, bool memory_column = false,
                       std::optional<double> of_memory_bound = std::nullopt);

}  // namespace collbench
