#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "harness/command_line.hpp"
#include "harness/common/result_row.hpp"

namespace collbench {

// The human-readable table rank 0 prints: a header that states what was run, how it
// was timed and how bandwidth is defined, then one line per (size, algorithm).
void print_table_header(const RunOptions& o, int nranks, int nhosts, const std::string& mpi_library);
// The parameter server's header: roles, modes, what a step's time is; `ps` is the
// run's metadata["parameter_server"].
void print_ps_table_header(const RunOptions& o, int nranks, int nhosts, const std::string& mpi_library,
                           const nlohmann::json& ps);
void print_table_row(const ResultRow& row, std::optional<double> time_vs_mpi);
void print_algorithm_list(const class Registry& registry);

}  // namespace collbench
