#pragma once
// Machine facts that cost time to measure (the memory-bandwidth triad: three arrays of
// up to 512 MiB, seconds on a large-cache Xeon) are measured once per machine and boot,
// kept in a small JSON file, and read back by every later run on that machine.
//   COLLBENCH_CACHE_DIR      where the file lives (default $XDG_CACHE_HOME/collbench,
//                            else $HOME/.cache/collbench); "off": measure every run
//   COLLBENCH_REFRESH_FACTS  1: measure again and replace the file
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace collbench {

// The triad as the metadata records it, with "source" (measured now, or the cache file
// and when it was measured there).
nlohmann::json triad_json_cached();

// The cache file for this host, or nothing where caching is off or no directory is known.
std::optional<std::string> machine_facts_path();

// The triad recorded in `text` if it was measured on this machine in this boot (same host,
// CPU model, last-level cache and boot id), else nothing; never throws.
std::optional<nlohmann::json> cached_triad(const std::string& text, const nlohmann::json& identity);

// What a cached triad must match: host, CPU model, last-level cache, kernel boot id.
nlohmann::json machine_identity();

}  // namespace collbench
