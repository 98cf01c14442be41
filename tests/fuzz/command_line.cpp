// The command line: every command's options, and with them the size, count and number
// parsers (-b/-e/-f, -n/-w, --watchdog, --segment-size, ...). The input is the
// arguments after `collbench`, separated by NUL bytes (at most 32); its first byte picks
// the rank count (1 to 8). A bad line must come back as a CommandError, never as an
// exception; input files it names (--workload, --counts) are read as a run reads them.
#include <vector>

#include "harness/command_line.hpp"
#include "harness/common/default_registry.hpp"
#include "tests/fuzz/fuzz_input.hpp"
#include "workloads/input_files.hpp"

using namespace collbench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int ranks = 1 + data[0] % 8;
  std::vector<std::string> args{"collbench"};
  std::string arg;
  for (std::size_t i = 1; i < size && args.size() <= 32; ++i) {
    if (data[i] == 0) {
      args.push_back(arg);
      arg.clear();
    } else {
      arg += static_cast<char>(data[i]);
    }
  }
  if (!arg.empty() && args.size() <= 32) args.push_back(arg);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  const Machine machine{16.0L * (1u << 30), 8.0L * (1u << 30), 1};
  parse_command_line(static_cast<int>(argv.size()), argv.data(), default_registry(), ranks, machine);
  forget_input_files();
  return 0;
}
