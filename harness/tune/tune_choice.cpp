#include "harness/tune/tune_choice.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <tuple>

namespace collbench {

std::optional<std::string> forced_algorithm_of(const std::string& label) {
  if (label.size() < 6 || label.rfind("mpi[", 0) != 0 || label.back() != ']' || label == "mpi[tuned]")
    return std::nullopt;
  return label.substr(4, label.size() - 5);
}

namespace {

std::string format_us(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", us);
  return buf;
}

SizeChoice choose_one(std::size_t bytes, const TuneMeasurement& fallback,
                      const std::vector<const TuneMeasurement*>& forced) {
  SizeChoice c;
  c.bytes = bytes;
  c.default_us = fallback.p50_us;
  const TuneMeasurement* best = nullptr;
  for (const TuneMeasurement* f : forced) {
    if (f->errors != 0) continue;  // wrong or unchecked results are never a choice
    if (!best || std::tie(f->p50_us, f->label) < std::tie(best->p50_us, best->label)) best = f;
  }
  if (!best) {
    c.reason = "no forced algorithm with checked, correct results";
    return c;
  }
  c.fastest = *forced_algorithm_of(best->label);
  c.fastest_us = best->p50_us;
  if (best->round_us.size() < 2 || fallback.round_us.size() < 2) {
    c.reason = "fewer than 2 rounds: no spread to beat";
    return c;
  }
  const double best_slowest = *std::max_element(best->round_us.begin(), best->round_us.end());
  const double default_fastest = *std::min_element(fallback.round_us.begin(), fallback.round_us.end());
  if (best->p50_us < fallback.p50_us && best_slowest < default_fastest) {
    c.algorithm = c.fastest;
    c.reason = "every round faster than the default's fastest (" + format_us(best_slowest) + " < " +
               format_us(default_fastest) + " us)";
  } else {
    c.reason = "within the default's spread";
  }
  return c;
}

}  // namespace

std::vector<CollectiveChoices> choose_algorithms(const std::vector<TuneMeasurement>& rows) {
  struct Point {
    const TuneMeasurement* fallback = nullptr;
    std::vector<const TuneMeasurement*> forced;
  };
  std::map<Collective, std::map<int, std::map<std::size_t, Point>>> points;
  for (const TuneMeasurement& r : rows) {
    Point& p = points[r.collective][r.ranks][r.bytes];
    if (r.label == "mpi")
      p.fallback = &r;
    else if (forced_algorithm_of(r.label))
      p.forced.push_back(&r);
  }
  std::vector<CollectiveChoices> out;
  for (const auto& [collective, by_ranks] : points) {
    CollectiveChoices cc{collective, {}};
    for (const auto& [ranks, by_bytes] : by_ranks) {
      CommunicatorChoices comm{ranks, {}};
      for (const auto& [bytes, p] : by_bytes)
        if (p.fallback && p.fallback->errors == 0) comm.sizes.push_back(choose_one(bytes, *p.fallback, p.forced));
      if (!comm.sizes.empty()) cc.communicators.push_back(std::move(comm));
    }
    if (!cc.communicators.empty()) out.push_back(std::move(cc));
  }
  return out;
}

std::string choice_at(const CommunicatorChoices& c, std::size_t bytes) {
  if (c.sizes.empty() || bytes < c.sizes.front().bytes || bytes > c.sizes.back().bytes) return "";
  const auto above = std::upper_bound(c.sizes.begin(), c.sizes.end(), bytes,
                                      [](std::size_t b, const SizeChoice& s) { return b < s.bytes; });
  return std::prev(above)->algorithm;
}

std::vector<SizeBand> size_bands(const CommunicatorChoices& c) {
  std::vector<SizeBand> bands;
  const auto add = [&](std::size_t from, std::optional<std::size_t> below, const std::string& algorithm) {
    if (below && *below <= from) return;
    if (!bands.empty() && bands.back().algorithm == algorithm)
      bands.back().below = below;
    else
      bands.push_back({from, below, algorithm});
  };
  if (c.sizes.empty()) return {{0, std::nullopt, ""}};
  add(0, c.sizes.front().bytes, "");
  for (std::size_t i = 0; i < c.sizes.size(); ++i) {
    const std::size_t below = i + 1 < c.sizes.size() ? c.sizes[i + 1].bytes : c.sizes[i].bytes + 1;
    add(c.sizes[i].bytes, below, c.sizes[i].algorithm);
  }
  add(c.sizes.back().bytes + 1, std::nullopt, "");
  return bands;
}

}  // namespace collbench
