// A workload CSV (--workload FILE.csv) and a compute profile (--profile FILE.csv): the
// first byte picks which, the rest is the file.
#include "tests/fuzz/fuzz_input.hpp"
#include "workloads/input_files.hpp"
#include "workloads/workload_csv.hpp"

using namespace collbench;

// fast-cpp-csv-parser reads through a 48 MiB buffer per reader; ASan's quarantine of
// each freed one made an execution take 200 ms. Without it, 3 times as many (heap
// overflows are still caught; a use after free only while the memory is not reused).
extern "C" const char* __asan_default_options() { return "quarantine_size_mb=0"; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string path = fuzz::as_file(data + 1, size - 1, ".csv");
  forget_input_files();  // the same name holds another file each time
  fuzz::refusals_allowed([&] {
    if (data[0] % 2 == 0) {
      read_workload_csv(path);
    } else {
      Workload w;
      w.name = "fuzz";
      for (const char* name : {"fc.weight", "fc.bias", "conv1.weight"}) w.tensors.push_back({name, 1000});
      read_compute_profile_csv(path, w);
    }
  });
  return 0;
}
