#pragma once
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/common/result_row.hpp"

namespace collbench {

// Appends rows to a CSV file under a header of `columns`, flushing each so an
// interrupted run keeps them. A row's field is written under the column of its name;
// a column the row lacks (or holds null) is left empty.
class CsvWriter {
 public:
  explicit CsvWriter(const std::string& path,
                     std::vector<std::string> columns = field_names(csv_fields(ResultRow{})));  // throws if unwritable
  void write(const Fields& fields);
  void write(const ResultRow& row) { write(csv_fields(row)); }

 private:
  std::ofstream out_;
  std::vector<std::string> columns_;
};

// Keeps a JSON document {"metadata": ..., "rows": [...]} on disk, rewritten whole
// (to a temporary file, then renamed) at each save so it is always valid JSON.
class JsonWriter {
 public:
  JsonWriter(std::string path, nlohmann::json metadata);  // throws if unwritable
  void add(nlohmann::json row);
  void add(const ResultRow& row) { add(to_json(row)); }
  void save();

 private:
  std::string path_;
  nlohmann::json doc_;
};

std::string csv_escape(const nlohmann::json& value);

}  // namespace collbench
