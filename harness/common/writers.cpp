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

CsvWriter::CsvWriter(const std::string& path, std::vector<std::string> columns)
    : out_(path, std::ios::out | std::ios::trunc), columns_(std::move(columns)) {
  if (!out_) throw std::runtime_error("cannot write CSV output '" + path + "'");
  std::string header;
  for (const std::string& k : columns_) header += (header.empty() ? "" : ",") + k;
  out_ << header << '\n' << std::flush;
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

void JsonWriter::add(nlohmann::json row) { doc_["rows"].push_back(std::move(row)); }

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
