#pragma once
// The parameter server's table: a header with the roles, modes and what a step's time
// is, then `run`'s line per row plus a detail line.
#include <nlohmann/json.hpp>
#include <string>

#include "harness/common/result_row.hpp"
#include "harness/ps/ps_options.hpp"

namespace collbench {

// `ps` is the run's metadata["parameter_server"].
void print_ps_table_header(const PsOptions& o, int nranks, int nhosts, const std::string& mpi_library,
                           const nlohmann::json& ps);
std::string ps_detail_line(const ResultRow& row);

}  // namespace collbench
