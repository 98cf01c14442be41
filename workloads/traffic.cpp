#include "workloads/traffic.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

#include "workloads/input_files.hpp"

namespace collbench {
namespace {

[[noreturn]] void refuse(const std::string& text, const std::string& why) {
  throw std::invalid_argument(text + ": " + why);
}

double number(const std::string& text, const std::string& field, const std::string& what) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(field, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != field.size() || !std::isfinite(v)) refuse(text, what + " '" + field + "' is not a number");
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);) out.push_back(item);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// The ranks in a seeded random order: mt19937_64's outputs are fixed by the standard,
// unlike std::shuffle's use of them, so the order is the same everywhere.
std::vector<int> seeded_order(int n, std::uint64_t seed) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 gen(seed);
  for (int i = n - 1; i > 0; --i) std::swap(order[static_cast<std::size_t>(i)], order[gen() % (i + 1)]);
  return order;
}

std::vector<double> zipf_popularity(const std::string& text, const std::vector<std::string>& parts, int n) {
  if (parts.size() < 2 || parts.size() > 3) refuse(text, "write zipf:S or zipf:S:SEED");
  const double s = number(text, parts[1], "exponent");
  if (s < 0) refuse(text, "the exponent must not be negative");
  const double seed = parts.size() == 3 ? number(text, parts[2], "seed") : 1;
  if (seed < 0 || seed != std::floor(seed) || seed > 9e15) refuse(text, "the seed must be a whole number");
  const std::vector<int> order = seeded_order(n, static_cast<std::uint64_t>(seed));
  std::vector<double> w(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) w[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] = std::pow(k + 1.0, -s);
  return w;
}

std::vector<double> hot_popularity(const std::string& text, const std::vector<std::string>& parts, int n,
                                   const std::string& item) {
  if (parts.size() != 3) refuse(text, "write hot:" + item + ":SHARE");
  const double r = number(text, parts[1], item), share = number(text, parts[2], "share");
  if (r < 0 || r >= n || r != std::floor(r))
    refuse(text, item + " " + parts[1] + " is not one of the " + std::to_string(n) + " " + item + "s");
  if (share < 0 || share > 1) refuse(text, "the share must lie between 0 and 1");
  std::vector<double> w(static_cast<std::size_t>(n), n > 1 ? (1 - share) / (n - 1) : 0);
  w[static_cast<std::size_t>(r)] = share;
  return w;
}

// Every sender alike: row after row of the receivers' popularity.
std::vector<double> every_sender(const std::vector<double>& receivers) {
  std::vector<double> w;
  for (std::size_t from = 0; from < receivers.size(); ++from) w.insert(w.end(), receivers.begin(), receivers.end());
  return w;
}

// The non-negative finite weights of a CSV file, row by row ('#' comments), each row
// checked to hold `per_row` values when that is not 0.
std::vector<double> csv_weights(const std::string& path, std::size_t per_row, std::size_t& rows) {
  const std::string& content = read_input_file(path, "weights file");
  std::vector<double> w;
  rows = 0;
  int line_no = 0;
  for (const std::string& raw : split(content, '\n')) {
    ++line_no;
    const std::string line = trimmed(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    const std::vector<std::string> cells = split(line, ',');
    const std::string where = path + " line " + std::to_string(line_no);
    if (per_row && cells.size() != per_row)
      refuse(path, where + " has " + std::to_string(cells.size()) + " values; a run of " + std::to_string(per_row) +
                       " ranks needs " + std::to_string(per_row) + " per row (one per receiver)");
    for (const std::string& cell : cells) {
      const double v = number(path, trimmed(cell), where + ": value");
      if (v < 0) refuse(path, where + ": weight " + trimmed(cell) + " is negative");
      if (v > 1e18) refuse(path, where + ": weight " + trimmed(cell) + " is too large (at most 1e18)");
      w.push_back(v);
    }
    ++rows;
  }
  return w;
}

std::vector<double> file_weights(const std::string& path, int n) {
  std::size_t rows = 0;
  std::vector<double> w = csv_weights(path, static_cast<std::size_t>(n), rows);
  if (rows != static_cast<std::size_t>(n))
    refuse(path, "has " + std::to_string(rows) + " rows; a run of " + std::to_string(n) + " ranks needs " +
                     std::to_string(n) + " (one per sender)");
  return w;
}

// moe:EXPERTS[:ROUTING]: tokens routed to experts spread evenly over the ranks, each
// expert as popular as ROUTING (uniform, zipf:S[:SEED], hot:EXPERT:SHARE, FILE.csv) says.
std::vector<double> moe_weights(const std::string& text, int n) {
  const std::size_t colon = text.find(':', 4);
  const std::string experts_text = text.substr(4, colon == std::string::npos ? std::string::npos : colon - 4);
  const std::string routing = colon == std::string::npos ? "uniform" : text.substr(colon + 1);
  const double experts = number(text, experts_text, "expert count");
  if (experts < 1 || experts != std::floor(experts) || experts > 1e6) refuse(text, "write moe:EXPERTS[:ROUTING]");
  const auto e = static_cast<int>(experts);
  if (e % n) refuse(text, std::to_string(e) + " experts cannot be spread evenly over " + std::to_string(n) + " ranks");
  const std::vector<double> popularity = parse_popularity(routing, e, "expert");
  std::vector<double> per_rank(static_cast<std::size_t>(n), 0.0);
  for (int k = 0; k < e; ++k)
    per_rank[static_cast<std::size_t>(k / (e / n))] += popularity[static_cast<std::size_t>(k)];
  return every_sender(per_rank);
}

}  // namespace

TrafficPattern parse_traffic_pattern(const std::string& text, int nranks) {
  TrafficPattern p{text, {}, nranks};
  const std::vector<std::string> parts = split(text, ':');
  const std::string kind = parts.empty() ? "" : parts[0];
  const std::size_t cells = static_cast<std::size_t>(nranks) * static_cast<std::size_t>(nranks);
  if (text == "uniform")
    p.weights.assign(cells, 1.0);
  else if (kind == "zipf")
    p.weights = every_sender(zipf_popularity(text, parts, nranks));
  else if (kind == "hot")
    p.weights = every_sender(hot_popularity(text, parts, nranks, "rank"));
  else if (kind == "moe")
    p.weights = moe_weights(text, nranks);
  else if (text.size() > 4 && text.substr(text.size() - 4) == ".csv")
    p.weights = file_weights(text, nranks);
  else
    refuse(text,
           "unknown pattern; valid: uniform, zipf:S[:SEED], hot:RANK:SHARE, moe:EXPERTS[:ROUTING], or a FILE.csv of "
           "weights");
  if (std::accumulate(p.weights.begin(), p.weights.end(), 0.0) <= 0) refuse(text, "every weight is zero: no traffic");
  return p;
}

std::vector<double> parse_popularity(const std::string& text, int items, const std::string& item) {
  const std::vector<std::string> parts = split(text, ':');
  std::vector<double> w;
  if (text == "uniform") {
    w.assign(static_cast<std::size_t>(items), 1.0);
  } else if (!parts.empty() && parts[0] == "zipf") {
    w = zipf_popularity(text, parts, items);
  } else if (!parts.empty() && parts[0] == "hot") {
    w = hot_popularity(text, parts, items, item);
  } else if (text.ends_with(".csv")) {
    std::size_t rows = 0;
    w = csv_weights(text, 0, rows);
    if (w.size() != static_cast<std::size_t>(items))
      refuse(text, "holds " + std::to_string(w.size()) + " weights; it needs one per " + item + " (" +
                       std::to_string(items) + ")");
  } else {
    refuse(text, "unknown pattern; valid: uniform, zipf:S[:SEED], hot:" + item + ":SHARE, or a FILE.csv of weights");
  }
  if (std::accumulate(w.begin(), w.end(), 0.0) <= 0) refuse(text, "every weight is zero: no traffic");
  return w;
}

bool is_symmetric(const TrafficPattern& p) {
  const auto n = static_cast<std::size_t>(p.nranks);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b)
      if (p.weights[a * n + b] != p.weights[b * n + a]) return false;
  return true;
}

SharedCounts scaled_counts(const TrafficPattern& p, std::size_t total) {
  const double sum = std::accumulate(p.weights.begin(), p.weights.end(), 0.0);
  const auto n = static_cast<std::size_t>(p.nranks);
  const bool symmetric = is_symmetric(p);
  std::vector<std::size_t> counts(p.weights.size());
  std::vector<std::pair<double, std::size_t>> fractions;  // of the cells that take a remainder
  std::size_t given = 0;
  for (std::size_t k = 0; k < p.weights.size(); ++k) {
    const long double exact = static_cast<long double>(total) * p.weights[k] / sum;
    counts[k] = static_cast<std::size_t>(std::floor(exact));
    given += counts[k];
    if (!symmetric || k / n <= k % n) fractions.push_back({static_cast<double>(exact - std::floor(exact)), k});
  }
  std::stable_sort(fractions.begin(), fractions.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [fraction, k] : fractions) {
    const std::size_t mirror = k % n * n + k / n, units = symmetric && mirror != k ? 2 : 1;
    if (given + units > total) continue;
    ++counts[k];
    if (units == 2) ++counts[mirror];
    given += units;
  }
  return std::make_shared<const CountMatrix>(p.nranks, std::move(counts));
}

TrafficSummary summarize_traffic(const CountMatrix& m) {
  const int n = m.nranks();
  std::vector<std::size_t> blocks;
  TrafficSummary s;
  for (int r = 0; r < n; ++r) {
    for (int to = 0; to < n; ++to) blocks.push_back(m.count(r, to));
    const std::size_t load = std::max(m.send_total(r), m.recv_total(r));
    if (load > s.busiest) s.busiest = load, s.busiest_rank = r;
  }
  std::sort(blocks.begin(), blocks.end());
  s.min = blocks.front();
  s.max = blocks.back();
  s.median = blocks[blocks.size() / 2];
  return s;
}

}  // namespace collbench
