#include "harness/common/machine_facts.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "collectives/kernels/cpu_facts.hpp"
#include "harness/common/metadata.hpp"
#include "harness/common/output_file.hpp"
#include "harness/common/topology.hpp"

namespace collbench {

namespace {

// Bumped when the triad's definition changes, so older files are measured again.
constexpr int kFactsVersion = 1;

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

nlohmann::json measure_triad_json() {
  const TriadResult t = measure_triad();
  return {{"gb_per_s", t.gb_per_s},
          {"array_bytes", t.array_bytes},
          {"passes", t.repetitions},
          {"definition", "a = b + s c on doubles, one core, best pass, 3 x array bytes per pass"},
          {"measured_utc", utc_now()}};
}

// Through OutputFile's discipline (complete before it has its name, replaced by rename),
// so a reader never sees half a file and two hosts writing at once leave one whole file.
// A cache: where it cannot be written, the next run measures again.
void write_cache(const std::string& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  try {
    OutputFile f(path, ExistingFile::replace, "machine facts cache");
    f.append(text);
    f.publish();
  } catch (const OutputError&) {}
}

}  // namespace

nlohmann::json machine_identity() {
  return {{"version", kFactsVersion},
          {"host", host_name()},
          {"cpu_model", cpu_facts().model},
          {"last_level_cache_bytes", cpu_facts().last_level_cache_bytes},
          {"boot_id", kernel_boot_id()}};
}

std::optional<std::string> machine_facts_path() {
  std::string dir = env_or_empty("COLLBENCH_CACHE_DIR");
  if (dir == "off") return std::nullopt;
  if (dir.empty() && !env_or_empty("XDG_CACHE_HOME").empty()) dir = env_or_empty("XDG_CACHE_HOME") + "/collbench";
  if (dir.empty() && !env_or_empty("HOME").empty()) dir = env_or_empty("HOME") + "/.cache/collbench";
  if (dir.empty()) return std::nullopt;
  return dir + "/machine-facts-" + host_name() + ".json";
}

std::optional<nlohmann::json> cached_triad(const std::string& text, const nlohmann::json& identity) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("identity") || j["identity"] != identity || !j.contains("triad")) return std::nullopt;
  const nlohmann::json& t = j["triad"];
  const auto positive = [&](const char* key) { return t.is_object() && t.contains(key) && t[key].is_number() && t[key] > 0; };
  if (!positive("gb_per_s") || !positive("array_bytes") || !positive("passes")) return std::nullopt;
  return t;
}

nlohmann::json triad_json_cached() {
  const std::optional<std::string> path = machine_facts_path();
  const nlohmann::json identity = machine_identity();
  if (path && env_or_empty("COLLBENCH_REFRESH_FACTS") != "1") {
    std::ifstream in(*path);
    std::ostringstream text;
    text << in.rdbuf();
    if (std::optional<nlohmann::json> t = cached_triad(text.str(), identity)) {
      (*t)["source"] = "cached in " + *path;
      return *t;
    }
  }
  nlohmann::json t = measure_triad_json();
  if (path) write_cache(*path, nlohmann::json{{"identity", identity}, {"triad", t}}.dump(2) + "\n");
  t["source"] = "measured by this run";
  return t;
}

}  // namespace collbench
