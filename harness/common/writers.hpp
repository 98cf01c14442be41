#pragma once
// The CSV and JSON result files. Both add one row with one write, so I/O stays linear
// in the rows, and a row that cannot be written is taken back (in a regular file) so
// the file stays as it was.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/common/output_file.hpp"
#include "harness/common/result_row.hpp"

namespace collbench {

// JSON text that never throws: a string that is not UTF-8 (a file name, say) gets
// U+FFFD in place of its bad bytes.
std::string json_text(const nlohmann::json& value, int indent = -1);

// A CSV file under a header of `columns`. A row's field goes under the column of its
// name; a column the row lacks (or holds null) is left empty.
class CsvWriter {
 public:
  CsvWriter(std::unique_ptr<OutputFile> file, std::vector<std::string> columns = field_names(csv_fields(ResultRow{})));
  void write(const Fields& fields);  // throws OutputError, the file as it was
  void write(const ResultRow& row) { write(csv_fields(row)); }
  // Takes back everything written after `size()` was `mark` (regular files only).
  void undo_to(std::uint64_t mark) { file_->truncate(mark); }
  OutputFile& file() { return *file_; }

 private:
  std::unique_ptr<OutputFile> file_;
  std::vector<std::string> columns_;
};

// A JSON document {"metadata": ..., "rows": [...], "completed": bool[, "stopped": why]}.
// In a regular file it is valid after every row: the row and the document's closing
// go out in one write at the end of the rows, and "completed" is false until
// finish(). A device or FIFO gets the document as a stream, closed by finish().
class JsonWriter {
 public:
  JsonWriter(std::unique_ptr<OutputFile> file, const nlohmann::json& metadata);
  void add(const nlohmann::json& row);  // throws OutputError, the file as it was
  void add(const ResultRow& row) { add(to_json(row)); }
  // Closes the document: completed, or (non-empty `stopped`) not, saying why.
  void finish(const std::string& stopped = "");
  OutputFile& file() { return *file_; }
  std::size_t rows() const { return rows_; }

 private:
  std::unique_ptr<OutputFile> file_;
  std::uint64_t rows_end_ = 0;  // where the next row goes
  std::size_t rows_ = 0;
  bool finished_ = false;
};

std::string csv_escape(const nlohmann::json& value);

}  // namespace collbench
