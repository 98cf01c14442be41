#include "harness/common/result_row.hpp"

#include "harness/common/stats.hpp"

namespace collbench {

std::vector<std::string> field_names(const Fields& fields) {
  std::vector<std::string> names;
  for (const auto& [k, v] : fields) names.push_back(k);
  return names;
}

nlohmann::json to_json(const Row& row) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : row.fields) j[k] = v;
  for (const auto& [k, v] : row.json_only.items()) j[k] = v;
  return j;
}

Fields csv_fields(const ResultRow& r) {
  Fields f{{"collective", r.collective},
           {"algorithm", r.algorithm},
           {"transport", r.transport},
           {"ranks", r.ranks},
           {"bytes", r.bytes},
           {"count", r.count},
           {"dtype", r.dtype},
           {"op", r.op},
           {"root", r.root},
           {"iters", r.iters},
           {"min_us", r.time_us.min},
           {"avg_us", r.time_us.mean},
           {"p50_us", r.time_us.p50},
           {"p99_us", r.time_us.p99},
           {"max_us", r.time_us.max},
           {"algbw_gbps", r.algbw_gbps},
           {"busbw_gbps", r.busbw_gbps},
           {"errors", r.errors},
           {"in_place", r.in_place},
           {"warmup", r.warmup},
           {"rounds", r.rounds},
           {"timing", r.timing},
           {"nodes", r.nodes},
           {"ranks_per_node", r.ranks_per_node},
           {"segment_bytes", r.segment_bytes},
           {"aggregate", r.aggregate},
           {"checked_calls", r.checked_calls},
           {"outliers", r.outliers}};
  f.insert(f.end(), r.extra.begin(), r.extra.end());
  return f;
}

Row to_row(const ResultRow& r, std::string line) {
  Row row{csv_fields(r), {{"round_mean_us", r.round_mean_us}}, std::move(line)};
  if (!r.details.is_null()) row.json_only["details"] = r.details;
  return row;
}

nlohmann::json to_json(const ResultRow& r) { return to_json(to_row(r)); }

void fill_timing(ResultRow& row, const std::vector<double>& samples_us, double busbw_factor) {
  row.time_us = summarize(samples_us);
  row.outliers = count_outliers(samples_us, row.time_us.p50);
  row.algbw_gbps = algbw_gbps(static_cast<double>(row.bytes), row.time_us.mean * 1e-6);
  row.busbw_gbps = row.algbw_gbps * busbw_factor;
}

}  // namespace collbench
