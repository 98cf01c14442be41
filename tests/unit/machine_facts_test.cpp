// The triad is measured once per machine and boot and read back after: a file from
// another machine, boot or definition, or a damaged one, is measured again.
#include "harness/common/machine_facts.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace collbench {
namespace {

nlohmann::json a_triad() {
  return {{"gb_per_s", 12.5}, {"array_bytes", 16 << 20}, {"passes", 5}, {"measured_utc", "2026-12-07T00:00:00Z"}};
}

TEST(MachineFacts, ATriadFromThisMachineAndBootIsReadBack) {
  const nlohmann::json id = machine_identity();
  const auto t = cached_triad(nlohmann::json{{"identity", id}, {"triad", a_triad()}}.dump(), id);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ((*t)["gb_per_s"], 12.5);
}

TEST(MachineFacts, AnotherBootHostCpuOrDefinitionIsMeasuredAgain) {
  const nlohmann::json id = machine_identity();
  for (const char* key : {"boot_id", "host", "cpu_model", "last_level_cache_bytes", "version"}) {
    nlohmann::json other = id;
    other[key] = "something else";
    EXPECT_FALSE(cached_triad(nlohmann::json{{"identity", other}, {"triad", a_triad()}}.dump(), id)) << key;
  }
}

TEST(MachineFacts, ADamagedFileIsMeasuredAgainNotAnError) {
  const nlohmann::json id = machine_identity();
  nlohmann::json no_rate = a_triad();
  no_rate.erase("gb_per_s");
  nlohmann::json zero = a_triad();
  zero["gb_per_s"] = 0;
  nlohmann::json text = a_triad();
  text["passes"] = "five";
  for (const std::string& bad :
       {std::string(), std::string("{\"identity\":"), std::string("[]"), nlohmann::json{{"identity", id}}.dump(),
        nlohmann::json{{"identity", id}, {"triad", no_rate}}.dump(), nlohmann::json{{"identity", id}, {"triad", zero}}.dump(),
        nlohmann::json{{"identity", id}, {"triad", text}}.dump(), nlohmann::json{{"identity", id}, {"triad", 3}}.dump()})
    EXPECT_FALSE(cached_triad(bad, id)) << bad;
}

TEST(MachineFacts, TheFirstRunMeasuresAndWritesLaterRunsReadTheFile) {
  const std::string dir = std::filesystem::temp_directory_path() / ("collbench-facts-" + std::to_string(getpid()));
  setenv("COLLBENCH_CACHE_DIR", dir.c_str(), 1);
  unsetenv("COLLBENCH_REFRESH_FACTS");
  const nlohmann::json first = triad_json_cached();
  EXPECT_EQ(first["source"], "measured by this run");
  ASSERT_TRUE(machine_facts_path().has_value());
  EXPECT_TRUE(std::filesystem::exists(*machine_facts_path()));
  const nlohmann::json second = triad_json_cached();
  EXPECT_EQ(second["source"], "cached in " + *machine_facts_path());
  EXPECT_EQ(second["gb_per_s"], first["gb_per_s"]);
  setenv("COLLBENCH_REFRESH_FACTS", "1", 1);
  EXPECT_EQ(triad_json_cached()["source"], "measured by this run");
  unsetenv("COLLBENCH_REFRESH_FACTS");
  setenv("COLLBENCH_CACHE_DIR", "off", 1);
  EXPECT_FALSE(machine_facts_path().has_value());
  EXPECT_EQ(triad_json_cached()["source"], "measured by this run");
  unsetenv("COLLBENCH_CACHE_DIR");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace collbench
