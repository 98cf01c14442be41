#pragma once
// The library's control variables through MPI_T, for the metadata and forced algorithms.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace collbench {

// A control variable as the MPI library holds it, read through the MPI tool interface
// (MPI_T), so values from the environment, MCA parameter files and launcher flags alike
// are seen as the library resolved them.
struct ControlVariable {
  std::string text;      // the value: an enum's name, a number, or a string
  long long number = 0;  // integer and enum values
  bool is_enum = false;
  std::map<long long, std::string> choices;  // an enum's values and names
};

// Between MPI_Init and MPI_Finalize, the only time MPI_T may be asked here.
bool mpi_is_running();

// Reads the named variables that the library has (others are left out). Any time
// after MPI_Init and before MPI_Finalize.
std::map<std::string, ControlVariable> read_control_variables(const std::vector<std::string>& names);

// A control variable's description as the library gives it (MPICH lists an enum's
// names there, in the order of their values, and has no MPI_T enum for them).
std::optional<std::string> control_variable_description(const std::string& name);

// Sets an integer or enum control variable of no object for the whole process, where the
// library lets it change after MPI_Init (MPICH reads its algorithm CVARs at every call);
// false when it cannot.
bool write_control_variable(const std::string& name, int value);

}  // namespace collbench
