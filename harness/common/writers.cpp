#include "harness/common/writers.hpp"

#include <cstdio>
#include <stdexcept>

namespace collbench {

std::string csv_escape(const nlohmann::json& v) {
  if (!v.is_string()) return v.dump();
  const std::string s = v.get<std::string>();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

namespace {

std::vector<std::string> result_columns(std::vector<std::string> extra) {
  std::vector<std::string> columns;
  for (const auto& [k, v] : csv_fields(ResultRow{})) columns.push_back(k);
  columns.insert(columns.end(), extra.begin(), extra.end());
  return columns;
}

}  // namespace

CsvWriter::CsvWriter(const std::string& path, std::vector<std::string> extra_columns)
    : CsvWriter(path, result_columns(std::move(extra_columns)), Exact{}) {}

CsvWriter CsvWriter::with_columns(const std::string& path, std::vector<std::string> columns) {
  return CsvWriter(path, std::move(columns), Exact{});
}

CsvWriter::CsvWriter(const std::string& path, std::vector<std::string> columns, Exact)
    : out_(path, std::ios::out | std::ios::trunc), columns_(std::move(columns)) {
  if (!out_) throw std::runtime_error("cannot write CSV output '" + path + "'");
  std::string header;
  for (const std::string& k : columns_) header += (header.empty() ? "" : ",") + k;
  out_ << header << '\n' << std::flush;
}

void CsvWriter::write(const ResultRow& row) {
  Fields fields = csv_fields(row);
  fields.insert(fields.end(), row.extra.begin(), row.extra.end());
  write(fields);
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
  out_ << line << '\n' << std::flush;
}

JsonWriter::JsonWriter(std::string path, nlohmann::json metadata) : path_(std::move(path)) {
  doc_["metadata"] = std::move(metadata);
  doc_["rows"] = nlohmann::json::array();
  save();
}

void JsonWriter::add(const ResultRow& row) { doc_["rows"].push_back(to_json(row)); }

void JsonWriter::add(nlohmann::json row) { doc_["rows"].push_back(std::move(row)); }

void JsonWriter::set_summary(const std::string& key, nlohmann::json value) { doc_["metadata"][key] = std::move(value); }

void JsonWriter::save() {
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::out | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write JSON output '" + path_ + "'");
    out << doc_.dump(1) << '\n';
    if (!out.flush()) throw std::runtime_error("cannot write JSON output '" + path_ + "'");
  }
  if (std::rename(tmp.c_str(), path_.c_str()) != 0)
    throw std::runtime_error("cannot write JSON output '" + path_ + "'");
}

}  // namespace collbench
