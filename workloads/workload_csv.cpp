#include "workloads/workload_csv.hpp"

#include <libfccp/csv.h>

#include "workloads/input_files.hpp"

#include <cmath>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace collbench {
namespace {

template <unsigned N>
using Reader = io::CSVReader<N, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                             io::single_line_comment<'#'>>;

[[noreturn]] void fail_at(const std::string& what, const std::string& path, unsigned line, const std::string& msg) {
  throw std::invalid_argument(what + " " + path + " line " + std::to_string(line) + ": " + msg);
}

template <class R>
void require_columns(const R& reader, const std::string& what, const std::string& path,
                     std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (!reader.has_column(n))
      throw std::invalid_argument(what + " " + path + ": the header has no '" + n + "' column");
}

// fast-cpp-csv-parser's own errors already name the line and file.
template <class F>
auto with_csv_errors(const std::string& what, F&& body) {
  try {
    return body();
  } catch (const io::error::base& e) {
    throw std::invalid_argument(what + ": " + e.what());
  }
}

}  // namespace

Workload read_workload_csv(const std::string& path) {
  const std::string what = "workload";
  return with_csv_errors(what, [&] {
    const std::string& text = read_input_file(path, what);
    Reader<8> in(path, text.data(), text.data() + text.size());
    in.read_header(io::ignore_missing_column | io::ignore_extra_column, "name", "elements", "dtype", "kind", "rows",
                   "row_elements", "lookups", "flops");
    require_columns(in, what, path, {"name", "elements"});
    Workload w;
    w.name = path;
    w.description = "from " + path;
    std::set<std::string> names;
    bool any_flops = false;
    for (;;) {
      std::string name, dtype = "f32", kind = "dense";
      std::size_t elements = 0, rows = 0, row_elements = 0, lookups = 0;
      double flops = 0;
      if (!in.read_row(name, elements, dtype, kind, rows, row_elements, lookups, flops)) break;
      const unsigned line = in.get_file_line();
      if (name.empty()) fail_at(what, path, line, "empty tensor name");
      if (!names.insert(name).second) fail_at(what, path, line, "tensor '" + name + "' appears twice");
      if (elements == 0) fail_at(what, path, line, "tensor '" + name + "' has no elements");
      if (elements > kMaxTensorElements)
        fail_at(what, path, line,
                "tensor '" + name + "' has " + std::to_string(elements) + " elements; at most " +
                    std::to_string(kMaxTensorElements));
      if (w.tensors.size() == kMaxTensors)
        fail_at(what, path, line, "more than " + std::to_string(kMaxTensors) + " tensors");
      GradientTensor t;
      t.name = name;
      t.elements = elements;
      auto d = parse_dtype(dtype);
      if (!d) fail_at(what, path, line, "unknown dtype '" + dtype + "'; valid: f32, f64, f16, bf16, i32, i64");
      t.dtype = *d;
      if (kind != "dense" && kind != "sparse")
        fail_at(what, path, line, "kind must be dense or sparse, not '" + kind + "'");
      t.sparse = kind == "sparse";
      if (t.sparse) {
        if (rows == 0 || row_elements == 0 || lookups == 0)
          fail_at(what, path, line, "sparse tensor '" + name + "' needs rows, row_elements and lookups");
        if (lookups > kMaxLookups)
          fail_at(what, path, line,
                  "sparse tensor '" + name + "' looks up " + std::to_string(lookups) + " ids per step; at most " +
                      std::to_string(kMaxLookups));
        if (row_elements > elements || rows != elements / row_elements || elements % row_elements)
          fail_at(what, path, line,
                  "rows x row_elements (" + std::to_string(rows) + " x " + std::to_string(row_elements) +
                      ") is not elements (" + std::to_string(elements) + ")");
        t.rows = rows;
        t.row_elements = row_elements;
        t.lookups = lookups;
      }
      if (!std::isfinite(flops) || flops < 0 || flops > kMaxLayerFlops)
        fail_at(what, path, line, "flops must be a number from 0 to 1e30");
      t.flops = flops;
      any_flops = any_flops || flops > 0;
      w.tensors.push_back(std::move(t));
    }
    if (w.tensors.empty()) throw std::invalid_argument(what + " " + path + ": no tensors");
    if (!any_flops)
      for (GradientTensor& t : w.tensors) t.flops = static_cast<double>(t.elements);
    return w;
  });
}

ComputeProfile read_compute_profile_csv(const std::string& path, const Workload& workload) {
  const std::string what = "compute profile";
  return with_csv_errors(what, [&] {
    const std::string& text = read_input_file(path, what);
    Reader<2> in(path, text.data(), text.data() + text.size());
    in.read_header(io::ignore_extra_column, "name", "ms");
    ComputeProfile p;
    p.backward_ms.assign(workload.tensors.size(), 0.0);
    std::set<std::string> seen;
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < workload.tensors.size(); ++i) index.emplace(workload.tensors[i].name, i);
    std::string name;
    double ms = 0;
    while (in.read_row(name, ms)) {
      const unsigned line = in.get_file_line();
      if (!std::isfinite(ms) || ms < 0 || ms > kMaxComputeMs)
        fail_at(what, path, line,
                "ms must be a number from 0 to " + std::to_string(static_cast<long>(kMaxComputeMs)) + " (one day)");
      if (!seen.insert(name).second) fail_at(what, path, line, "'" + name + "' appears twice");
      if (name == "forward") {
        p.forward_ms = ms;
        continue;
      }
      if (name == "optimizer") {
        p.optimizer_ms = ms;
        continue;
      }
      const auto it = index.find(name);
      if (it == index.end()) fail_at(what, path, line, "'" + name + "' is not a tensor of workload " + workload.name);
      p.backward_ms[it->second] = ms;
    }
    return p;
  });
}

}  // namespace collbench
