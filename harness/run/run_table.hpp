#pragma once
// The table rank 0 prints for `run`: a header that states what was run, how it was
// timed and how bandwidth is defined, then one line per (size, algorithm). The
// parameter server's table shares the column header and the line.
#include <optional>
#include <string>

#include "harness/common/result_row.hpp"
#include "harness/run/run_options.hpp"

namespace collbench {

void print_table_header(const SweepSpec& s, int nranks, int nhosts, const std::string& mpi_library);
void print_column_header();
std::string table_line(const ResultRow& row, std::optional<double> time_vs_mpi);

}  // namespace collbench
