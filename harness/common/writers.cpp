#include "harness/common/writers.hpp"

namespace collbench {
namespace {

std::string closing(bool completed, const std::string& stopped) {
  std::string s = "\n ],\n \"completed\": " + std::string(completed ? "true" : "false");
  if (!stopped.empty()) s += ",\n \"stopped\": " + json_text(stopped);
  return s + "\n}\n";
}

// While a run goes on, the closing carries this much trailing space (valid JSON), so the
// final closing, "stopped" reason included, overwrites bytes the file already has: on
// a full disk it could not otherwise be written, and the document would be cut off.
constexpr std::size_t kStoppedRoom = 512;
std::string running_closing() { return closing(false, "") + std::string(kStoppedRoom, ' '); }

// The final closing, its reason shortened if it would not fit the room kept for it.
std::string final_closing(const std::string& stopped) {
  std::string end = closing(stopped.empty(), stopped);
  const std::size_t room = running_closing().size();
  for (std::size_t keep = stopped.size(); end.size() > room && keep > 0;) {
    keep = keep > 64 ? keep - 64 : 0;
    end = closing(false, stopped.substr(0, keep) + "...");
  }
  return end;
}

}  // namespace

std::string json_text(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string csv_escape(const nlohmann::json& v) {
  if (!v.is_string()) return json_text(v);
  const std::string s = v.get<std::string>();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

CsvWriter::CsvWriter(std::unique_ptr<OutputFile> file, std::vector<std::string> columns)
    : file_(std::move(file)), columns_(std::move(columns)) {
  std::string header;
  for (const std::string& k : columns_) header += (header.empty() ? "" : ",") + k;
  file_->append(header + '\n');
}

void CsvWriter::write(const Fields& fields) {
  std::string line;
  bool first = true;
  for (const std::string& column : columns_) {
    if (!first) line += ",";
    first = false;
    for (const auto& [k, v] : fields)
      if (k == column) {
        if (!v.is_null()) line += csv_escape(v);
        break;
      }
  }
  const std::uint64_t mark = file_->size();
  try {
    file_->append(line + '\n');
  } catch (const OutputError&) {
    if (file_->in_place()) file_->truncate(mark);
    throw;
  }
}

JsonWriter::JsonWriter(std::unique_ptr<OutputFile> file, const nlohmann::json& metadata) : file_(std::move(file)) {
  const std::string head = "{\n \"metadata\": " + json_text(metadata, 1) + ",\n \"rows\": [";
  file_->append(head);
  rows_end_ = file_->size();
  if (file_->in_place()) file_->append(running_closing());
}

void JsonWriter::add(const nlohmann::json& row) {
  const std::string text = (rows_ == 0 ? "\n  " : ",\n  ") + json_text(row);
  if (!file_->in_place()) {
    file_->append(text);
    ++rows_;
    return;
  }
  const std::string running = running_closing();
  try {
    file_->write_at(rows_end_, text + running);
  } catch (const OutputError&) {
    // Put the closing back where it was; it overwrites bytes the file already has.
    try {
      file_->write_at(rows_end_, running);
      file_->truncate(rows_end_ + running.size());
    } catch (const OutputError&) {}
    throw;
  }
  rows_end_ += text.size();
  ++rows_;
}

void JsonWriter::finish(const std::string& stopped) {
  if (finished_) return;
  finished_ = true;
  if (!file_->in_place()) return file_->append(closing(stopped.empty(), stopped));
  const std::string end = final_closing(stopped);
  file_->write_at(rows_end_, end);
  file_->truncate(rows_end_ + end.size());
}

}  // namespace collbench
