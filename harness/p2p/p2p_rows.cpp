#include "harness/p2p/p2p_rows.hpp"

#include <cstdio>

#include "harness/common/metadata.hpp"
#include "harness/common/sizes.hpp"
#include "harness/common/stats.hpp"

namespace collbench {
namespace {

std::string pair_text(const LinkPair& p) { return std::to_string(p.first) + "," + std::to_string(p.second); }

Fields leading(const char* kind, P2pTest test, const LinkPair& pair, const std::string& transport) {
  return {{"kind", kind},
          {"test", kP2pTestNames.name(test)},
          {"link", pair.link},
          {"ranks", pair_text(pair)},
          {"transport", transport}};
}

// The columns the other kind fills, left empty (null) in this one.
void add_empty(Fields& f, std::initializer_list<const char*> names) {
  for (const char* n : names) f.push_back({n, nullptr});
}

constexpr std::initializer_list<const char*> kMeasuredOnly = {"window", "iters",  "warmup", "rounds",
                                                              "min_us", "avg_us", "p50_us", "p99_us",
                                                              "max_us", "gbps",   "errors", "outliers"};
constexpr std::initializer_list<const char*> kFitOnly = {"from_bytes",  "alpha_us",    "beta_gbps",
                                                         "fit_rms_err", "fit_max_err", "fit_points"};

}  // namespace

Row p2p_measured_row(const P2pMeasured& m) {
  const Summary s = summarize(m.us);
  Fields f = leading("measured", m.test, m.pair, m.transport);
  f.insert(f.end(), {{"bytes", m.bytes},
                     {"window", m.window},
                     {"iters", m.us.size()},
                     {"warmup", m.warmup},
                     {"rounds", m.rounds},
                     {"min_us", s.min},
                     {"avg_us", s.mean},
                     {"p50_us", s.p50},
                     {"p99_us", s.p99},
                     {"max_us", s.max},
                     {"gbps", algbw_gbps(static_cast<double>(m.bytes), s.mean * 1e-6)},
                     {"errors", m.wrong},
                     {"outliers", count_outliers(m.us, s.p50)}});
  add_empty(f, kFitOnly);
  char line[256];
  std::snprintf(line, sizeof line, "  %-9s %-10s %-5s %11zu %6d %10.2f %10.2f %10.2f %10.2f %10.2f %9.4f %6lld\n",
                kP2pTestNames.name(m.test).data(), m.pair.link.c_str(), pair_text(m.pair).c_str(), m.bytes, m.window,
                s.min, s.mean, s.p50, s.p99, s.max, algbw_gbps(static_cast<double>(m.bytes), s.mean * 1e-6),
                static_cast<long long>(m.wrong));
  return {f, {{"round_mean_us", m.round_mean_us}}, line};
}

Row p2p_fit_row(P2pTest test, const LinkPair& pair, const std::string& transport, const AlphaBetaRange& r) {
  Fields f = leading("fit", test, pair, transport);
  f.push_back({"bytes", r.to_bytes});
  add_empty(f, kMeasuredOnly);
  // beta 0 means "no measurable bandwidth in this range": left empty rather than shown as 0 GB/s.
  f.insert(f.end(), {{"from_bytes", r.from_bytes},
                     {"alpha_us", r.alpha_us},
                     {"beta_gbps", r.us_per_byte > 0 ? nlohmann::json(r.beta_gbps()) : nlohmann::json(nullptr)},
                     {"fit_rms_err", r.rms_rel_err},
                     {"fit_max_err", r.max_rel_err},
                     {"fit_points", r.points}});
  char beta[32] = "not measurable";
  if (r.us_per_byte > 0) std::snprintf(beta, sizeof beta, "%.4g GB/s", r.beta_gbps());
  char line[256];
  std::snprintf(line, sizeof line,
                "# fit %-9s %-10s %-5s %9s .. %-9s alpha %8.3f us  beta %-14s rms %5.1f%%  max %5.1f%%  (%d sizes)\n",
                kP2pTestNames.name(test).data(), pair.link.c_str(), pair_text(pair).c_str(),
                format_bytes(static_cast<std::size_t>(r.from_bytes)).c_str(),
                format_bytes(static_cast<std::size_t>(r.to_bytes)).c_str(), r.alpha_us, beta, 100 * r.rms_rel_err,
                100 * r.max_rel_err, r.points);
  return {f, nlohmann::json::object(), line};
}

std::vector<std::string> p2p_columns() { return field_names(p2p_measured_row(P2pMeasured{}).fields); }

void print_p2p_header(const nlohmann::json& m) {
  std::printf("# collbench p2p: %d ranks, transport %s, interconnect %s\n", m["ranks"].get<int>(),
              m["transport"].get<std::string>().c_str(), m["interconnect"]["name"].get<std::string>().c_str());
  for (const auto& p : m["p2p"]["pairs"])
    std::printf("# %s: ranks %d (%s) and %d (%s)\n", p["link"].get<std::string>().c_str(), p["ranks"][0].get<int>(),
                p["hosts"][0].get<std::string>().c_str(), p["ranks"][1].get<int>(),
                p["hosts"][1].get<std::string>().c_str());
  const bool per_call =
      kTimingPolicyNames.parse(m["p2p"]["options"]["timing"].get<std::string>()) == TimingPolicy::per_call;
  std::printf("# timing: %s\n", per_call ? "per-call, the pair exchanges 4 bytes (untimed) before each timed iteration"
                                         : "loop, iterations back to back");
  for (const std::string& w : metadata_warnings(m)) std::printf("# WARNING: %s\n", w.c_str());
  for (const char* k :
       {"latency", "exchange", "written", "rewrite", "busy", "pair", "bandwidth", "times", "link", "errors", "fit"})
    std::printf("# %s: %s\n", k, m["definitions"][k].get<std::string>().c_str());
  std::printf("# %-9s %-10s %-5s %11s %6s %10s %10s %10s %10s %10s %9s %6s\n", "test", "link", "ranks", "bytes",
              "window", "min_us", "avg_us", "p50_us", "p99_us", "max_us", "GB/s", "errors");
}

}  // namespace collbench
