#include "collectives/kernels/cpu_facts.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace collbench {
namespace {

std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (line.rfind(key, 0) != 0 || colon == std::string::npos) continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return {};
}

CpuFacts read_facts() {
  CpuFacts f;
  f.model = cpuinfo_field("model name");
  std::istringstream flags(cpuinfo_field("flags"));
  std::vector<std::string> have;
  for (std::string flag; flags >> flag;) have.push_back(flag);
  for (const char* want : kKernelFeatures)
    if (std::find(have.begin(), have.end(), want) != have.end()) f.features.emplace_back(want);
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level(dir + "level"), type(dir + "type"), size(dir + "size");
    int l = 0;
    std::string kind;
    std::size_t kib = 0;
    char unit = 0;
    if (!(level >> l && type >> kind && size >> kib >> unit) || kind == "Instruction") continue;
    const std::size_t bytes = kib << (unit == 'M' ? 20 : 10);
    std::string name = "L";  // built piecewise: GCC 12 -O3 warns falsely (-Wrestrict) on one expression
    name += std::to_string(l);
    if (kind == "Data") name += 'd';
    f.caches.emplace_back(std::move(name), bytes);
    f.last_level_cache_bytes = std::max(f.last_level_cache_bytes, bytes);
  }
  return f;
}

// Out of line so the compiler cannot fold passes together.
[[gnu::noinline]] void triad(double* a, const double* b, const double* c, double s, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

}  // namespace

const CpuFacts& cpu_facts() {
  static const CpuFacts facts = read_facts();
  return facts;
}

TriadResult measure_triad() {
  const std::size_t llc = std::max<std::size_t>(cpu_facts().last_level_cache_bytes, 8u << 20);
  TriadResult r;
  r.array_bytes = std::clamp<std::size_t>(2 * llc, 16u << 20, 512u << 20);
  r.repetitions = 5;
  const std::size_t n = r.array_bytes / sizeof(double);
  const auto a = std::make_unique<double[]>(n), b = std::make_unique<double[]>(n), c = std::make_unique<double[]>(n);
  std::fill_n(b.get(), n, 1.0);
  std::fill_n(c.get(), n, 2.0);
  double best = 1e30;
  for (int pass = 0; pass <= r.repetitions; ++pass) {
    const auto t0 = std::chrono::steady_clock::now();
    triad(a.get(), b.get(), c.get(), 3.0, n);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (pass > 0) best = std::min(best, s);  // the first pass faults a's pages in
  }
  r.gb_per_s = 3.0 * static_cast<double>(r.array_bytes) / best / 1e9;
  return r;
}

}  // namespace collbench
