#include "harness/common/result_sink.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "collectives/process/progress.hpp"
#include "collectives/transport/shm_memory.hpp"
#include "harness/common/control.hpp"
#include "harness/common/exit_status.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/writers.hpp"

namespace collbench {

void add_output_flags(CLI::App& app, OutputOptions& out, const std::string& name) {
  app.add_option("--csv", out.csv_path,
                 "CSV output path (default: results/collbench-" + name + "-<time>.csv, never an existing name)");
  app.add_option("--json", out.json_path, "JSON output path (default: next to the CSV)");
  app.add_option("--output-dir", out.output_dir, "Directory for default output files")->capture_default_str();
  app.add_flag("--overwrite", out.overwrite,
               "Replace output files that already hold data (refused otherwise); "
               "devices such as /dev/null are always written through");
}

struct ResultSink::State {
  std::timed_mutex mutex;
  OutputOptions paths;
  std::unique_ptr<CsvWriter> csv;
  std::unique_ptr<JsonWriter> json;
  std::string interconnect;  // the last column of every row, when the metadata names one
  bool stopped = false;      // the JSON is closed (stop_results): no row may follow in either file
};

namespace {

namespace fs = std::filesystem;

std::mutex g_open_mutex;
ResultSink::State* g_open = nullptr;  // rank 0's sink, for stop_results

std::string where(const OutputOptions& o) { return o.csv_path + " and " + o.json_path; }

struct Named {
  std::string label, path;
};

// Refuses two outputs that are one file (only a character device, such as /dev/null,
// may take several), and any one OutputFile would refuse, before any is created.
void vet(const std::vector<Named>& outputs, ExistingFile existing) {
  std::vector<OutputTarget> targets;
  for (const Named& n : outputs) targets.push_back(inspect_output(n.path, n.label));
  for (std::size_t i = 0; i < targets.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j)
      if (same_output(targets[i], targets[j]) && !(targets[i].character_device && targets[j].character_device))
        throw OutputError(outputs[j].label + " and " + outputs[i].label + " name the same file '" + outputs[i].path +
                          "'; give each output its own path");
    require_writable(targets[i], existing, outputs[i].label);
  }
}

std::string timestamp() {
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&t));
  return stamp;
}

// Fills in the JSON next to an explicit CSV (or the CSV next to an explicit JSON).
void pair_paths(OutputOptions& o) {
  auto beside = [](const std::string& given, const std::string& flag, const std::string& other,
                   const std::string& other_flag, const std::string& ext) {
    if (!inspect_output(given, flag).regular)
      throw OutputError(flag + " '" + given + "' is not a regular file, so the " + other +
                        " cannot go next to it: give " + other_flag + " too");
    return fs::path(given).replace_extension(ext).string();
  };
  if (o.json_path.empty()) o.json_path = beside(o.csv_path, "--csv", "JSON", "--json", ".json");
  if (o.csv_path.empty()) o.csv_path = beside(o.json_path, "--json", "CSV", "--csv", ".csv");
}

}  // namespace

ResultSink::ResultSink() = default;
ResultSink::ResultSink(ResultSink&&) noexcept = default;
ResultSink& ResultSink::operator=(ResultSink&&) noexcept = default;
ResultSink::~ResultSink() {
  std::lock_guard lock(g_open_mutex);
  if (state_ && g_open == state_.get()) g_open = nullptr;
}

ResultSink ResultSink::open(OutputOptions& out, const std::string& name, std::vector<std::string> columns,
                            const nlohmann::json& metadata, MPI_Comm comm, const std::vector<OtherOutput>& others) {
  progress::set_startup("opening the outputs");
  ResultSink sink;
  std::string err;
  if (rank_of(comm) == 0) {
    try {
      auto st = std::make_unique<State>();
      // Every command's rows say which interconnect they were measured on.
      if (metadata.contains("interconnect")) {
        st->interconnect = metadata["interconnect"].value("name", "");
        if (!st->interconnect.empty()) columns.push_back("interconnect");
      }
      const ExistingFile existing = out.overwrite ? ExistingFile::replace : ExistingFile::refuse;
      std::string csv_label = "--csv", json_label = "--json";
      auto create = [&](const OutputOptions& o) {
        std::vector<Named> all{{csv_label, o.csv_path}, {json_label, o.json_path}};
        for (const OtherOutput& x : others) all.push_back({x.flag, x.path});
        vet(all, existing);
        st->csv = std::make_unique<CsvWriter>(std::make_unique<OutputFile>(o.csv_path, existing, csv_label), columns);
        st->json =
            std::make_unique<JsonWriter>(std::make_unique<OutputFile>(o.json_path, existing, json_label), metadata);
        st->csv->file().publish();
        try {
          st->json->file().publish();
        } catch (const OutputError&) {
          std::remove(o.csv_path.c_str());  // ours: published a moment ago
          throw;
        }
      };
      if (!out.csv_path.empty() || !out.json_path.empty()) {
        const bool json_given = !out.json_path.empty(), csv_given = !out.csv_path.empty();
        pair_paths(out);
        json_label = json_given ? "--json" : "the JSON (default: the CSV's name with .json)";
        csv_label = csv_given ? "--csv" : "the CSV (default: the JSON's name with .csv)";
        create(out);
      } else {
        // Default names: the first of base, base-2, base-3, ... that no one has.
        fs::create_directories(out.output_dir);
        const std::string base = out.output_dir + "/collbench-" + name + "-" + timestamp();
        for (int n = 1;; ++n) {
          OutputOptions o = out;
          const std::string stem = n == 1 ? base : base + "-" + std::to_string(n);
          o.csv_path = stem + ".csv";
          o.json_path = stem + ".json";
          if (n < 1000 && (fs::exists(fs::symlink_status(o.csv_path)) || fs::exists(fs::symlink_status(o.json_path))))
            continue;
          try {
            create(o);
          } catch (const OutputNameTaken&) {
            if (n < 1000) continue;
            throw;
          } catch (const OutputError&) {
            // Another run took one of these names between the check above and here
            // (vetting then finds it holding data): try the next name.
            if (n < 1000 && (fs::exists(fs::symlink_status(o.csv_path)) || fs::exists(fs::symlink_status(o.json_path))))
              continue;
            throw;
          }
          out = o;
          break;
        }
      }
      st->paths = out;
      sink.state_ = std::move(st);
      std::lock_guard lock(g_open_mutex);
      g_open = sink.state_.get();
    } catch (const std::exception& e) {  // OutputError, or filesystem_error from the directory
      err = e.what();
    }
  }
  throw_if_any_rank_failed(err, comm);
  return sink;
}

namespace {

// A row or file that could not be written: the files are as they were before it.
[[noreturn]] void end_for_output_error(ResultSink::State& st, const std::string& what) {
  try {
    st.json->finish("an output could not be written: " + what);
  } catch (const OutputError&) {}
  std::fflush(stdout);
  std::fprintf(stderr,
               "collbench: error: %s; ending the run with exit status %d. The %zu row(s) written before are in %s "
               "(the JSON says \"completed\": false)\n",
               what.c_str(), kExitOutputFailed, st.json->rows(), where(st.paths).c_str());
  std::fflush(stderr);
  // Let the launcher forward the message before the abort tears its pipes down (under
  // load, Hydra lost it once in a CI run).
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  remove_shm_names();
  end_job(kExitOutputFailed, OtherRanks::must_be_ended);
}

}  // namespace

void ResultSink::add(const Row& row) {
  if (!state_) return;
  State& st = *state_;
  std::lock_guard lock(st.mutex);
  if (st.stopped) return;
  const std::uint64_t csv_mark = st.csv->file().size();
  Row with = row;
  if (!st.interconnect.empty()) with.fields.emplace_back("interconnect", st.interconnect);
  try {
    st.csv->write(with.fields);
    try {
      st.json->add(to_json(with));
    } catch (const OutputError&) {
      st.csv->undo_to(csv_mark);  // a no-op on a device
      throw;
    }
  } catch (const OutputError& e) {
    end_for_output_error(st, e.what());
  }
  if (!row.line.empty()) {
    std::fputs(row.line.c_str(), stdout);
    std::fflush(stdout);
  }
}

void ResultSink::write_other(const OtherOutput& other, const std::string& content) {
  if (!state_) return;
  State& st = *state_;
  std::lock_guard lock(st.mutex);
  try {
    OutputFile file(other.path, st.paths.overwrite ? ExistingFile::replace : ExistingFile::refuse, other.flag);
    file.append(content);
    file.publish();
  } catch (const OutputError& e) {
    end_for_output_error(st, e.what());
  }
}

void ResultSink::finish(const std::string& stopped) {
  if (!state_) return;
  State& st = *state_;
  std::lock_guard lock(st.mutex);
  try {
    st.json->finish(stopped);
  } catch (const OutputError& e) {
    end_for_output_error(st, e.what());
  }
}

void ResultSink::print_paths(const char* what) const {
  if (state_) std::printf("# %s: %s\n", what, where(state_->paths).c_str());
}

std::string stop_results(const std::string& why) {
  std::string paths;
  {
    std::lock_guard registry(g_open_mutex);
    if (g_open) {
      // A row being written takes microseconds; a thread stuck in a write is not waited for.
      std::unique_lock lock(g_open->mutex, std::chrono::seconds(2));
      if (lock.owns_lock()) {
        g_open->stopped = true;  // the process ends in a moment: a row the main thread adds now would reach the CSV only
        try {
          g_open->json->finish(why);
        } catch (const OutputError&) {}
      }
      paths = where(g_open->paths);
    }
  }
  // Then the table printed so far, unless a thread holds stdout's lock (a stalled main
  // thread may: waiting for it could hang the caller). After the files: where the
  // launcher is gone, stdout is a pipe nobody reads, and writing it could end the process.
  if (ftrylockfile(stdout) == 0) {
    fflush_unlocked(stdout);
    funlockfile(stdout);
  }
  return paths;
}

}  // namespace collbench
