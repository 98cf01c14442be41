#include "collectives/cost_model/link_fit.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "collectives/kernels/dtype_visit.hpp"
#include "collectives/kernels/reduce_kernels.hpp"

namespace collbench {

namespace {

constexpr FitSettings kModelFit{.max_ranges = 8, .min_points = 2, .tolerance = 0.02};
// How far from the exchange the written test's medians must lie to be a cost of its own.
constexpr double kWrittenDiffers = 0.1;
// The pair test's first message against one ping-pong: about 1 in turn, about 2 shared.
constexpr double kPairShares = 1.5;

// A model file's range: a p2p fit row's, or a fit's own (beta null where the range's
// times do not grow with the size).
nlohmann::json range_json(const nlohmann::json& from_bytes, const nlohmann::json& alpha_us,
                          const nlohmann::json& beta_gbps) {
  return {{"from_bytes", from_bytes}, {"alpha_us", alpha_us}, {"beta_gbps", beta_gbps}};
}

// Why no bandwidth: too few sizes, or ping-pong medians that hardly move from the
// smallest to the largest size. Two busy-polling ranks sharing one core measure the
// scheduler's tick (4 ms at HZ=250) at every size, not the link.
std::string flat_medians(const nlohmann::json& doc) {
  double lo = 0, hi = 0, small = 0, large = 0;
  for (const nlohmann::json& r : doc["rows"])
    if (r.value("kind", "") == "measured" && r.value("test", "") == "latency" && r.contains("p50_us") &&
        r["p50_us"].is_number()) {
      const double t = r["p50_us"].get<double>();
      const double b = json_field(r, "bytes").get<double>();
      lo = lo == 0 ? t : std::min(lo, t), hi = std::max(hi, t);
      small = small == 0 ? b : std::min(small, b), large = std::max(large, b);
    }
  if (lo <= 0 || large <= small || hi > 1.25 * lo) return " (run collbench p2p over more sizes)";
  char text[320];
  std::snprintf(text, sizeof text,
                ": every ping-pong took %.1f-%.1f us from %.0f to %.0f bytes, so the ranks waited on something "
                "other than the link (ranks sharing a core wait for the scheduler's tick: run p2p on an idle "
                "machine, one rank per core)",
                lo, hi, small, large);
  return text;
}

}  // namespace

const nlohmann::json& json_field(const nlohmann::json& row, const char* key) {
  static const nlohmann::json none;
  if (!row.is_object()) return none;
  const auto it = row.find(key);
  return it == row.end() ? none : *it;
}

nlohmann::json links_from_p2p(const nlohmann::json& doc, const std::string& path) {
  if (!doc.is_object() || !doc.contains("rows") || !doc["rows"].is_array())
    throw std::invalid_argument("'" + path + "' is not a collbench p2p result (no rows)");
  nlohmann::json out = {{"notes", nlohmann::json::array()}};
  auto fits = [&](const std::string& link, const std::string& test) {
    nlohmann::json ranges = nlohmann::json::array();
    for (const nlohmann::json& r : doc["rows"])
      if (r.value("kind", "") == "fit" && r.value("link", "") == link && r.value("test", "") == test)
        ranges.push_back(
            range_json(json_field(r, "from_bytes"), json_field(r, "alpha_us"), json_field(r, "beta_gbps")));
    return ranges;
  };
  // The p2p run's own fit allows 4 ranges within 5%; a model is better served by a
  // finer one (protocol switches and the fall out of cache): refitted from the measured
  // medians where the document has them.
  auto measured = [&](const std::string& link, const std::string& test, const std::string& stat) {
    std::vector<SizeTime> points;
    for (const nlohmann::json& r : doc["rows"])
      if (r.value("kind", "") == "measured" && r.value("link", "") == link && r.value("test", "") == test &&
          r.contains(stat) && r[stat].is_number() && r[stat].get<double>() > 0)
        points.push_back({json_field(r, "bytes").get<double>(), r[stat].get<double>()});
    return points;
  };
  auto refit = [&](const std::string& link, const std::string& test) {
    const std::vector<SizeTime> points = measured(link, test, "p50_us");
    return points.size() < 2 ? fits(link, test) : fitted_ranges(points)["ranges"];
  };
  // Both ways at once is bimodal on a FIFO link: the two directions overlap, or one
  // side's handshake waits behind its own outgoing data and they take turns (twice as
  // long). A collective pays such exchanges step after step, so their mean, not the
  // median of one; both are kept (validate_model.sh shows each one's errors).
  // Where the written test measures the same exchange, both tests' calls are one sample
  // (weighted by their counts): twice the calls halve the luck of which mode they hit.
  auto means = [&](const std::string& link, bool pooled) {
    std::map<std::string, std::map<double, std::pair<double, double>>> sums;  // test: bytes: (calls, total us)
    for (const std::string test : {"exchange", "written"}) {
      std::map<double, double> calls;
      if (pooled)
        for (const SizeTime& c : measured(link, test, "iters")) calls[c.bytes] = c.us;
      for (const SizeTime& p : measured(link, test, "avg_us")) {
        const double n = calls.count(p.bytes) ? calls[p.bytes] : 1;
        auto& [k, total] = sums[pooled ? "exchange" : test][p.bytes];
        k += n, total += n * p.us;
      }
    }
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [test, by_size] : sums) {
      std::vector<SizeTime> points;
      for (const auto& [bytes, nt] : by_size) points.push_back({bytes, nt.second / nt.first});
      if (points.size() >= 2) out[test] = fitted_ranges(points);
    }
    return out;
  };
  // Whether a send of bytes just written costs other than an exchange: the median over
  // the sizes from 64 KiB of written / exchange medians, kWrittenDiffers or more from 1.
  // On shared memory the receiver reads lines the sender holds modified (1.3-1.9x from
  // 64 KiB to 8 MiB in results/model); across a network the two tests measure the same
  // transfer, and their difference is the exchange's spread (on a FIFO link its means
  // over 10 calls differ by up to 30% either way), which a collective's written sends,
  // all but its first step's, would inherit. Empty where fewer than 3 sizes qualify.
  auto written_ratio = [&](const std::string& link) -> std::optional<double> {
    std::map<double, double> ex, wr;
    for (const SizeTime& p : measured(link, "exchange", "p50_us"))
      if (p.bytes >= 65536) ex[p.bytes] = p.us;
    std::vector<double> ratios;
    for (const SizeTime& p : measured(link, "written", "p50_us"))
      if (ex.count(p.bytes)) ratios.push_back(p.us / ex[p.bytes]);
    if (ratios.size() < 3) return std::nullopt;
    std::sort(ratios.begin(), ratios.end());
    const std::size_t h = ratios.size() / 2;
    return ratios.size() % 2 ? ratios[h] : (ratios[h - 1] + ratios[h]) / 2;
  };
  // From which size a pair's messages in flight at once share its bandwidth: where p2p's
  // pair test (two messages at once, until the first arrives, after a go message) less
  // the go's ping-pong time takes kPairShares or more of one ping-pong of the size, at
  // that size and every larger one (two sizes at least). Below, a latency-bound size
  // cannot tell the two apart, and one after another is what a message's cost assumes.
  auto pair_shares = [&](const std::string& link, std::string& note) -> std::optional<double> {
    std::map<double, double> lat, pair;
    for (const SizeTime& p : measured(link, "latency", "p50_us")) lat[p.bytes] = p.us;
    for (const SizeTime& p : measured(link, "pair", "p50_us")) pair[p.bytes] = p.us;
    if (lat.empty() || pair.empty()) return std::nullopt;
    const double go = lat.begin()->second;
    std::optional<double> from;
    int run = 0;
    char text[64];
    note.clear();
    for (const auto& [bytes, us] : pair) {
      if (!lat.count(bytes)) continue;
      const double ratio = (us - go) / lat[bytes];
      std::snprintf(text, sizeof text, "%s%.0f: %.2f", note.empty() ? "" : ", ", bytes, ratio);
      note += text;
      if (ratio >= kPairShares) {
        if (!run++) from = bytes;
      } else {
        from.reset(), run = 0;
      }
    }
    return run >= 2 ? from : std::nullopt;
  };
  for (const std::string link : {"intra-host", "inter-host"}) {
    // Ping-pong: one message at a time, as a step's transfer goes.
    const auto lat = refit(link, "latency"), ex = refit(link, "exchange"), wr = refit(link, "written");
    if (lat.empty() ||
        std::none_of(lat.begin(), lat.end(), [](const nlohmann::json& r) { return r["beta_gbps"].is_number(); }))
      continue;
    const std::string key = link == "intra-host" ? "intra_host" : "inter_host";
    nlohmann::json l = {{"ranges", lat},
                        {"from",
                         "p2p medians fitted piecewise (up to 8 ranges within 2%): ranges from ping-pong "
                         "(latency), exchange from the exchange test, written from the written test where it differs "
                         "(notes), rewrite from the rewrite test where written is kept, stream from the bandwidth test "
                         "(per message); exchange_means: both from their means, "
                         "pooled where the two are the same"}};
    if (ex.empty())
      out["notes"].push_back(key + ": no exchange test in the p2p run, so exchanges cost as one way");
    else
      l["exchange"] = {{"ranges", ex}};
    const std::optional<double> ratio = written_ratio(link);
    const bool same = ratio && std::abs(*ratio - 1) < kWrittenDiffers;
    if (ratio) {
      char note[240];
      std::snprintf(
          note, sizeof note, "%s: written / exchange median from 64 KiB %.3f: %s", key.c_str(), *ratio,
          same ? "the same transfer; no written cost, the two tests' means pooled" : "kept as the written cost");
      out["notes"].push_back(note);
    }
    if (!wr.empty() && !same) l["written"] = {{"ranges", wr}};
    // Storing over bytes the peer read costs apart where the peer's core reads this
    // rank's memory, which is where a send of modified lines costs apart too: kept with
    // the written cost (on shared memory 1.2-1.6x a plain store where the two cores share
    // a cache, 4-5x where they do not; over TCP or a network the reader never touches
    // the sender's lines). Only between ranks of one host.
    if (link == "intra-host" && l.contains("written"))
      if (const auto rw = refit(link, "rewrite"); !rw.empty()) l["rewrite"] = {{"ranges", rw}};
    // A stream of messages (the bandwidth test) shows what each costs that a window in
    // flight cannot overlap: without it, a pipeline's segments overlap their whole alpha.
    if (const auto st = refit(link, "bandwidth"); !st.empty())
      l["stream"] = {{"ranges", st}};
    else
      out["notes"].push_back(key +
                             ": no bandwidth test in the p2p run, so messages in flight overlap their whole alpha");
    if (const nlohmann::json m = means(link, same); !m.empty()) l["exchange_means"] = m;
    std::string ratios;
    const std::optional<double> shares_from = pair_shares(link, ratios);
    if (!ratios.empty())
      out["notes"].push_back(key + ": pair test less the go message / ping-pong, by size (" + ratios +
                             "): " + (shares_from ? "a pair's messages share its bandwidth" : "one after another"));
    if (shares_from) l["pair_shares"] = {{"from_bytes", *shares_from}};
    out[key] = l;
  }
  if (!out.contains("intra_host") && !out.contains("inter_host"))
    throw std::invalid_argument("'" + path + "' has no p2p latency fit rows with a bandwidth" + flat_medians(doc));
  for (auto [have, missing] : {std::pair{"intra_host", "inter_host"}, std::pair{"inter_host", "intra_host"}})
    if (out.contains(have) && !out.contains(missing)) {
      out[missing] = out[have];
      out["notes"].push_back(std::string(missing) + " copied from " + have + ": the p2p run had no such pair");
    }
  return out;
}

KernelTimer::KernelTimer(std::size_t max_bytes) : a_(max_bytes), b_(max_bytes), dst_(max_bytes) {}

nlohmann::json KernelTimer::timed_ranges(DType dtype, const ReduceOp* op, const std::function<void()>& together) {
  std::vector<SizeTime> points;
  const std::size_t elem = dtype_size(dtype);
  PageBytes &a = a_, &b = b_, &dst = dst_;
  fill_ones(dtype, a.data(), a.size()), fill_ones(dtype, b.data(), b.size()), fill_ones(dtype, dst.data(), dst.size());
  for (std::size_t bytes = 64; bytes <= a.size(); bytes *= 4) {
    const std::size_t count = bytes / elem;
    double best = 1e30;
    const int reps = bytes < (1 << 20) ? 20 : 3;
    for (int rep = 0; rep < reps; ++rep) {
      together();
      const auto t0 = std::chrono::steady_clock::now();
      if (op)
        reduce(dtype, *op, dst.data(), a.data(), b.data(), count);
      else
        std::memcpy(dst.data(), a.data(), bytes);
      best = std::min(best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    points.push_back({static_cast<double>(bytes), std::max(best, 1e-3)});
  }
  return fitted_ranges(points);
}

nlohmann::json fitted_ranges(const std::vector<SizeTime>& points) {
  nlohmann::json out = nlohmann::json::array();
  for (const AlphaBetaRange& r : fit_alpha_beta(points, kModelFit).ranges)
    out.push_back(range_json(r.from_bytes, r.alpha_us,
                             r.us_per_byte > 0 ? nlohmann::json(r.beta_gbps()) : nlohmann::json(nullptr)));
  return {{"ranges", out}};
}

}  // namespace collbench
