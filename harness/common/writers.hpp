#pragma once
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/common/result_row.hpp"

namespace collbench {

// Appends rows to a CSV file, flushing each so an interrupted sweep keeps them.
class CsvWriter {
 public:
  // `extra_columns` follow the common columns; a row lacking one leaves it empty.
  explicit CsvWriter(const std::string& path, std::vector<std::string> extra_columns = {});  // throws if unwritable
  // Rows of named fields under a header of exactly `columns` (replay's rows).
  static CsvWriter with_columns(const std::string& path, std::vector<std::string> columns);
  void write(const ResultRow& row);
  void write(const Fields& fields);  // by column name; a missing or null field is left empty

 private:
  struct Exact {};
  CsvWriter(const std::string& path, std::vector<std::string> columns, Exact);

  std::ofstream out_;
  std::vector<std::string> columns_;
};

// Keeps a JSON document {"metadata": ..., "rows": [...]} on disk, rewritten whole
// (to a temporary file, then renamed) after each size so it is always valid JSON.
class JsonWriter {
 public:
  JsonWriter(std::string path, nlohmann::json metadata);  // throws if unwritable
  void add(const ResultRow& row);
  void add(nlohmann::json row);
  void save();
  void set_summary(const std::string& key, nlohmann::json value);

 private:
  std::string path_;
  nlohmann::json doc_;
};

std::string csv_escape(const nlohmann::json& value);

}  // namespace collbench
