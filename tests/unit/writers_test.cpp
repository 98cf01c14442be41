#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/common/writers.hpp"

using namespace collbench;

namespace {
std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
namespace fs = std::filesystem;

// A fresh directory per test: files left behind show up in entries().
std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/writers-" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}
std::unique_ptr<OutputFile> output(const std::string& path, ExistingFile existing = ExistingFile::refuse) {
  return std::make_unique<OutputFile>(path, existing, "test output");
}
CsvWriter csv_at(const std::string& path) {
  CsvWriter w(output(path));
  w.file().publish();
  return w;
}
JsonWriter json_at(const std::string& path, ExistingFile existing = ExistingFile::refuse) {
  JsonWriter w(output(path, existing), {{"mpi", {{"library", "test"}}}});
  w.file().publish();
  return w;
}
// Writes past `bytes` fail with EFBIG, as on a full disk, until the guard goes.
struct FileSizeLimit {
  rlimit old{};
  explicit FileSizeLimit(rlim_t bytes) {
    std::signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &old);
    rlimit now = old;
    now.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &now);
  }
  ~FileSizeLimit() { setrlimit(RLIMIT_FSIZE, &old); }
};

ResultRow sample() {
  ResultRow r;
  r.collective = "allreduce";
  r.algorithm = "ring";
  r.transport = "mpi-p2p";
  r.ranks = 2;
  r.bytes = 1024;
  r.count = 256;
  r.dtype = "f32";
  r.op = "sum";
  r.iters = 20;
  r.time_us = {1, 2, 2, 3, 4};
  r.algbw_gbps = 0.5;
  r.busbw_gbps = 0.5;
  r.errors = 0;
  r.timing = "per-call";
  r.round_mean_us = {2};
  return r;
}
}  // namespace

TEST(CsvWriter, WritesTheDocumentedLeadingColumnsInOrder) {
  const std::string path = fresh_dir("columns") + "/w.csv";
  {
    CsvWriter w = csv_at(path);
    w.write(sample());
  }
  const std::string text = read(path);
  const std::string header = text.substr(0, text.find('\n'));
  EXPECT_EQ(header.rfind("collective,algorithm,transport,ranks,bytes,count,dtype,op,root,iters,min_us,avg_us,"
                         "p50_us,p99_us,max_us,algbw_gbps,busbw_gbps,errors",
                         0),
            0u)
      << header;
  EXPECT_NE(text.find("\nallreduce,ring,mpi-p2p,2,1024,256,f32,sum,0,20,1.0,2.0,2.0,3.0,4.0,0.5,0.5,0,"),
            std::string::npos)
      << text;
}

TEST(CsvWriter, RowsAreOnDiskAsSoonAsWritten) {
  const std::string path = fresh_dir("flush") + "/flush.csv";
  CsvWriter w = csv_at(path);
  w.write(sample());
  EXPECT_NE(read(path).find("allreduce,ring"), std::string::npos);  // writer still open
}

TEST(CsvWriter, QuotesFieldsThatNeedIt) {
  EXPECT_EQ(csv_escape("plain"), "plain");
  EXPECT_EQ(csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_escape(3), "3");
}

TEST(OutputFile, AnUnwritablePathNamesThePathAndTheReason) {
  try {
    OutputFile f("/nonexistent-dir/x.csv", ExistingFile::refuse, "CSV output");
    FAIL() << "no error";
  } catch (const OutputError& e) {
    EXPECT_STREQ(e.what(), "cannot write CSV output '/nonexistent-dir/x.csv': No such file or directory");
  }
}

TEST(JsonWriter, IsAValidDocumentAfterEveryRowAndSaysWhetherItCompleted) {
  const std::string path = fresh_dir("json") + "/w.json";
  JsonWriter w = json_at(path);
  auto doc = nlohmann::json::parse(read(path));
  EXPECT_EQ(doc["rows"].size(), 0u);
  EXPECT_EQ(doc["completed"], false);
  w.add(sample());
  w.add(sample());
  doc = nlohmann::json::parse(read(path));
  EXPECT_EQ(doc["metadata"]["mpi"]["library"], "test");
  ASSERT_EQ(doc["rows"].size(), 2u);
  EXPECT_EQ(doc["rows"][1]["algorithm"], "ring");
  EXPECT_EQ(doc["rows"][0]["p99_us"], 3.0);
  EXPECT_EQ(doc["rows"][0]["round_mean_us"][0], 2.0);
  EXPECT_EQ(doc["completed"], false);
  w.finish();
  doc = nlohmann::json::parse(read(path));
  EXPECT_EQ(doc["completed"], true);
  EXPECT_FALSE(doc.contains("stopped"));
  EXPECT_EQ(doc["rows"].size(), 2u);
}

TEST(JsonWriter, AStoppedDocumentSaysWhy) {
  const std::string path = fresh_dir("stopped") + "/w.json";
  JsonWriter w = json_at(path);
  w.add(sample());
  w.finish("interrupted by SIGINT");
  const auto doc = nlohmann::json::parse(read(path));
  EXPECT_EQ(doc["completed"], false);
  EXPECT_EQ(doc["stopped"], "interrupted by SIGINT");
  EXPECT_EQ(doc["rows"].size(), 1u);
}

TEST(JsonWriter, TextThatIsNotUtf8IsReplacedNotThrown) {
  const std::string bad = "results/\xff\xfe.json";
  EXPECT_EQ(nlohmann::json::parse(json_text(bad)).get<std::string>(), "results/\xEF\xBF\xBD\xEF\xBF\xBD.json");
  const std::string path = fresh_dir("utf8") + "/w.json";
  JsonWriter w(output(path), {{"path", bad}});
  w.file().publish();
  EXPECT_NO_THROW(nlohmann::json::parse(read(path)));
}

TEST(OutputFile, AFileThatHoldsDataIsRefusedUnlessReplacing) {
  const std::string dir = fresh_dir("existing"), path = dir + "/old.csv";
  std::ofstream(path) << "measured before\n";
  EXPECT_THROW(OutputFile(path, ExistingFile::refuse, "CSV output"), OutputError);
  EXPECT_EQ(read(path), "measured before\n");
  {
    CsvWriter w(output(path, ExistingFile::replace));
    EXPECT_EQ(read(path), "measured before\n");  // the old file stays until the new one is complete
    w.file().publish();
  }
  EXPECT_EQ(read(path).rfind("collective,", 0), 0u);
  EXPECT_EQ(entries(dir), std::vector<std::string>{"old.csv"});  // no temporary left
}

TEST(OutputFile, AnEmptyExistingFileIsTaken) {
  const std::string path = fresh_dir("empty") + "/made-by-mktemp.csv";
  std::ofstream{path};
  CsvWriter w = csv_at(path);
  EXPECT_EQ(read(path).rfind("collective,", 0), 0u);
}

TEST(OutputFile, ASymlinkIsFollowedNotReplaced) {
  const std::string dir = fresh_dir("symlink");
  fs::create_symlink("target.json", dir + "/link.json");
  {
    JsonWriter w = json_at(dir + "/link.json");
    w.finish();
  }
  EXPECT_TRUE(fs::is_symlink(dir + "/link.json"));
  EXPECT_EQ(nlohmann::json::parse(read(dir + "/target.json"))["completed"], true);
}

TEST(OutputFile, NothingIsLeftWhenTheFileIsNeverPublished) {
  const std::string dir = fresh_dir("unpublished");
  { CsvWriter w(output(dir + "/never.csv")); }
  EXPECT_TRUE(entries(dir).empty());
}

// A private device node, so /dev is never touched; skipped where mknod is not allowed.
std::string device_node(const std::string& dir, const char* name, unsigned minor) {
  const std::string path = dir + "/" + name;
  if (mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor)) != 0) return "";
  return path;
}

TEST(OutputFile, ADeviceIsWrittenThroughAndStaysADevice) {
  const std::string dir = fresh_dir("devices");
  const std::string null = device_node(dir, "null", 3), full = device_node(dir, "full", 7);
  if (null.empty() || full.empty()) GTEST_SKIP() << "mknod is not permitted here";
  {
    JsonWriter w = json_at(null);
    w.add(sample());
    w.finish();
  }
  try {
    JsonWriter w = json_at(full);
    FAIL() << "writing to a full device did not fail";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
  }
  struct stat st {};
  ASSERT_EQ(stat(null.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  ASSERT_EQ(stat(full.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"full", "null"}));
}

TEST(OutputFile, AFifoNobodyReadsIsRefusedWithoutWaiting) {
  const std::string path = fresh_dir("fifo") + "/pipe";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  try {
    OutputFile f(path, ExistingFile::refuse, "CSV output");
    FAIL() << "no error";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("no process has this FIFO open for reading"), std::string::npos);
  }
}

TEST(JsonWriter, ARowThatCannotBeWrittenLeavesTheDocumentAsItWas) {
  const std::string path = fresh_dir("full-json") + "/w.json";
  JsonWriter w = json_at(path);
  w.add(sample());
  const std::string before = read(path);
  {
    const FileSizeLimit limit(before.size() + 100);  // room for part of a row only
    EXPECT_THROW(w.add(sample()), OutputError);
  }
  EXPECT_EQ(read(path), before);
  EXPECT_EQ(nlohmann::json::parse(read(path))["rows"].size(), 1u);
}

TEST(CsvWriter, ARowThatCannotBeWrittenIsTakenBack) {
  const std::string path = fresh_dir("full-csv") + "/w.csv";
  CsvWriter w = csv_at(path);
  w.write(sample());
  const std::string before = read(path);
  {
    const FileSizeLimit limit(before.size() + 10);
    EXPECT_THROW(w.write(sample()), OutputError);
  }
  EXPECT_EQ(read(path), before);
}

TEST(OutputTargets, SameFileThroughALinkOrADotIsDetected) {
  const std::string dir = fresh_dir("same");
  std::ofstream(dir + "/a.csv") << "x";
  fs::create_symlink("a.csv", dir + "/b.csv");
  EXPECT_TRUE(same_output(inspect_output(dir + "/a.csv"), inspect_output(dir + "/b.csv")));
  EXPECT_TRUE(same_output(inspect_output(dir + "/new.json"), inspect_output(dir + "/./new.json")));
  EXPECT_FALSE(same_output(inspect_output(dir + "/new.json"), inspect_output(dir + "/a.csv")));
}
