#include "harness/tune/tune_choice.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <tuple>
#include <utility>

#include "harness/common/stats.hpp"

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

// One label's measurements at one point, by launch (input file).
using Series = std::map<int, const TuneMeasurement*>;

double median_of(const Series& s, double TuneMeasurement::*field) {
  std::vector<double> v;
  for (const auto& [launch, m] : s) v.push_back(m->*field);
  return percentile(std::move(v), 50);
}

double median_p50(const Series& s) { return median_of(s, &TuneMeasurement::p50_us); }
double median_mean(const Series& s) { return median_of(s, &TuneMeasurement::mean_us); }

// How far one launch's round means scatter: p50s closer than this cannot be told apart.
double round_spread(const TuneMeasurement& m) {
  if (m.round_us.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(m.round_us.begin(), m.round_us.end());
  return *hi - *lo;
}

enum class Verdict { slower, faster, faster_by_mean };

// a against b: faster by p50, or slower within the band and lower in mean (both known):
// the one whose calls fall less often into a slow mode.
Verdict compare(double a_p50, double a_mean, double b_p50, double b_mean, double band) {
  if (a_p50 < b_p50) return Verdict::faster;
  if (a_p50 <= b_p50 + band && a_mean > 0 && b_mean > 0 && a_mean < b_mean) return Verdict::faster_by_mean;
  return Verdict::slower;
}

bool all_correct(const Series& s) {
  return std::all_of(s.begin(), s.end(), [](const auto& e) { return e.second->errors == 0; });
}

// Within one launch: the forced algorithm's slowest round against the baseline's fastest.
void judge_rounds(SizeChoice& c, const TuneMeasurement& best, const TuneMeasurement& baseline,
                  const std::string& against) {
  if (best.round_us.size() < 2 || baseline.round_us.size() < 2) {
    c.reason = "one launch of fewer than 2 rounds: no spread to beat";
    return;
  }
  const double best_slowest = *std::max_element(best.round_us.begin(), best.round_us.end());
  const double baseline_fastest = *std::min_element(baseline.round_us.begin(), baseline.round_us.end());
  if (best.p50_us < baseline.p50_us && best_slowest < baseline_fastest) {
    c.algorithm = c.fastest;
    c.reason = "every round faster than the fastest of " + against + " (" + format_us(best_slowest) + " < " +
               format_us(baseline_fastest) + " us)";
  } else {
    c.reason = best.p50_us < baseline.p50_us ? "faster, but within the spread of " + against : against + " is as fast";
  }
}

// Across launches, each pairing the baseline (the default, or the library's own
// algorithm forced) with the algorithm measured beside it: a launch's speed can change as
// a whole (a VM's CPU placement), which rounds inside one launch never show, so the
// algorithm must win in most launches, not in their pooled times.
void judge_launches(SizeChoice& c, const Series& best, const Series& baseline, double baseline_us,
                    const std::string& against) {
  int launches = 0, wins = 0, by_mean = 0;
  std::vector<double> bands;
  for (const auto& [launch, d] : baseline)
    if (const auto b = best.find(launch); b != best.end()) {
      const TuneMeasurement& m = *b->second;
      ++launches;
      bands.push_back(std::max(round_spread(m), round_spread(*d)));
      const Verdict v = compare(m.p50_us, m.mean_us, d->p50_us, d->mean_us, bands.back());
      wins += v != Verdict::slower;
      by_mean += v == Verdict::faster_by_mean;
    }
  const std::string tally = std::to_string(wins) + " of " + std::to_string(launches) + " launches";
  if (launches == 0) {
    c.reason = "never measured in the same launch round (file) as " + against + ": merge each round's files";
    return;
  }
  if (launches == 1) {
    for (const auto& [launch, d] : baseline)
      if (best.count(launch)) judge_rounds(c, *best.at(launch), *d, against);
    return;
  }
  const bool faster_in_median = compare(c.fastest_us, median_mean(best), baseline_us, median_mean(baseline),
                                        percentile(bands, 50)) != Verdict::slower;
  if (2 * wins > launches && faster_in_median) {
    c.algorithm = c.fastest;
    c.reason = "faster than " + against + " in " + tally +
               (by_mean ? " (" + std::to_string(by_mean) + " by the mean, the p50s within the rounds' spread)" : "");
  } else {
    c.reason = faster_in_median ? "faster in only " + tally : against + " is as fast";
  }
}

SizeChoice choose_one(std::size_t bytes, const Series& fallback, const std::map<std::string, Series>& forced,
                      const std::string& library_algorithm) {
  SizeChoice c;
  c.bytes = bytes;
  c.default_us = median_p50(fallback);
  c.library_algorithm = library_algorithm;
  const std::pair<const std::string, Series>* best = nullptr;
  for (const auto& f : forced) {
    if (!all_correct(f.second)) continue;  // wrong or unchecked results are never a choice
    if (!best || std::pair{median_p50(f.second), f.first} < std::pair{median_p50(best->second), best->first}) best = &f;
  }
  if (!best) {
    c.reason = "no forced algorithm with checked, correct results";
    return c;
  }
  c.fastest = *forced_algorithm_of(best->first);
  c.fastest_us = median_p50(best->second);
  if (!library_algorithm.empty() && c.fastest == library_algorithm) {
    c.reason = "the library's own choice here";
    return c;
  }
  // Like with like: the library's own algorithm forced, where measured and correct.
  if (const auto own = forced.find("mpi[" + library_algorithm + "]");
      !library_algorithm.empty() && own != forced.end() && all_correct(own->second))
    judge_launches(c, best->second, own->second, median_p50(own->second), library_algorithm + " (the library's)");
  else
    judge_launches(c, best->second, fallback, c.default_us, "the default");
  return c;
}

}  // namespace

std::vector<CollectiveChoices> choose_algorithms(const std::vector<TuneMeasurement>& rows,
                                                 const LibraryChoice& library) {
  struct Point {
    Series fallback;
    std::map<std::string, Series> forced;
    int nodes = 1, ranks_per_node = 1;
  };
  std::map<Collective, std::map<int, std::map<std::size_t, Point>>> points;
  for (const TuneMeasurement& r : rows) {
    Point& p = points[r.collective][r.ranks][r.bytes];
    p.nodes = r.nodes;
    p.ranks_per_node = r.ranks_per_node;
    if (r.label == "mpi")
      p.fallback[r.launch] = &r;
    else if (forced_algorithm_of(r.label))
      p.forced[r.label][r.launch] = &r;
  }
  std::vector<CollectiveChoices> out;
  for (const auto& [collective, by_ranks] : points) {
    CollectiveChoices cc{collective, {}};
    for (const auto& [ranks, by_bytes] : by_ranks) {
      CommunicatorChoices comm{ranks, {}};
      for (const auto& [bytes, p] : by_bytes)
        if (!p.fallback.empty() && all_correct(p.fallback))
          comm.sizes.push_back(choose_one(bytes, p.fallback, p.forced,
                                          library ? library(collective, ranks, p.nodes, p.ranks_per_node, bytes) : ""));
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

namespace {

const CommunicatorChoices* communicator_of(const std::vector<CollectiveChoices>& choices, Collective c, int ranks) {
  for (const CollectiveChoices& cc : choices)
    if (cc.collective == c)
      for (const CommunicatorChoices& comm : cc.communicators)
        if (comm.ranks == ranks) return &comm;
  return nullptr;
}

// The first size in [lo, hi] where `part` has an algorithm of the file's, if any.
std::optional<std::size_t> chosen_within(const CommunicatorChoices& part, std::size_t lo, std::size_t hi) {
  for (const SizeBand& b : size_bands(part))
    if (!b.algorithm.empty() && b.from <= hi && (!b.below || *b.below > lo)) return std::max(b.from, lo);
  return std::nullopt;
}

}  // namespace

void keep_compositions_as_measured(std::vector<CollectiveChoices>& choices,
                                   const std::vector<Composition>& compositions) {
  // The parts' choices as chosen, before any composed choice is dropped (no part composes here).
  const std::vector<CollectiveChoices> chosen = choices;
  for (CollectiveChoices& cc : choices)
    for (CommunicatorChoices& comm : cc.communicators)
      for (std::size_t i = 0; i < comm.sizes.size(); ++i) {
        SizeChoice& s = comm.sizes[i];
        // What this choice covers under choice_at's rule: up to the next measured size.
        const std::size_t hi = i + 1 < comm.sizes.size() ? comm.sizes[i + 1].bytes - 1 : s.bytes;
        for (const Composition& k : compositions) {
          if (k.collective != cc.collective || k.algorithm != s.algorithm) continue;
          for (Collective part : k.parts) {
            const CommunicatorChoices* p = communicator_of(chosen, part, comm.ranks);
            const std::optional<std::size_t> at = p ? chosen_within(*p, s.bytes, hi) : std::nullopt;
            if (!at || s.algorithm.empty()) continue;
            s.reason = s.algorithm + " runs " + std::string(collective_name(part)) +
                       " through the library's selection, which this file changes at " + std::to_string(*at) +
                       " B: not what was measured";
            s.algorithm.clear();
          }
        }
      }
}

}  // namespace collbench
