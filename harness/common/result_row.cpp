#include "harness/common/result_row.hpp"

namespace collbench {

Fields csv_fields(const ResultRow& r) {
  return {{"collective", r.collective}, {"algorithm", r.algorithm},   {"transport", r.transport},
          {"ranks", r.ranks},           {"bytes", r.bytes},           {"count", r.count},
          {"dtype", r.dtype},           {"op", r.op},                 {"root", r.root},
          {"iters", r.iters},           {"min_us", r.time_us.min},    {"avg_us", r.time_us.mean},
          {"p50_us", r.time_us.p50},    {"p99_us", r.time_us.p99},    {"max_us", r.time_us.max},
          {"algbw_gbps", r.algbw_gbps}, {"busbw_gbps", r.busbw_gbps}, {"errors", r.errors},
          {"in_place", r.in_place},     {"warmup", r.warmup},         {"rounds", r.rounds},
          {"timing", r.timing},         {"nodes", r.nodes},           {"ranks_per_node", r.ranks_per_node},
          {"segment_bytes", r.segment_bytes}};
}

nlohmann::json to_json(const ResultRow& r) {
  nlohmann::json j = nlohmann::json::object();
  for (auto& [k, v] : csv_fields(r)) j[k] = v;
  for (auto& [k, v] : r.extra) j[k] = v;
  j["round_mean_us"] = r.round_mean_us;
  if (!r.details.is_null()) j["details"] = r.details;
  return j;
}

}  // namespace collbench
