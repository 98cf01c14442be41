#include "harness/model/model_fit.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "collectives/page_bytes.hpp"
#include "collectives/reduce_kernels.hpp"
#include "generated/build_info.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/writers.hpp"
#include "harness/p2p/alpha_beta.hpp"

namespace collbench {

nlohmann::json links_from_p2p(const nlohmann::json& doc, const std::string& path) {
  if (!doc.is_object() || !doc.contains("rows") || !doc["rows"].is_array())
    throw std::invalid_argument("'" + path + "' is not a collbench p2p result (no rows)");
  nlohmann::json out = {{"notes", nlohmann::json::array()}};
  auto fits = [&](const std::string& link, const std::string& test) {
    std::vector<nlohmann::json> f;
    for (const nlohmann::json& r : doc["rows"])
      if (r.value("kind", "") == "fit" && r.value("link", "") == link && r.value("test", "") == test) f.push_back(r);
    return f;
  };
  for (const std::string link : {"intra-host", "inter-host"}) {
    const auto lat = fits(link, "latency"), bw = fits(link, "bandwidth");
    if (lat.empty() || bw.empty()) continue;
    // The largest range with a measurable bandwidth: streaming, as collectives send.
    double gbps = 0;
    for (auto it = bw.rbegin(); it != bw.rend() && gbps == 0; ++it)
      if ((*it)["beta_gbps"].is_number()) gbps = (*it)["beta_gbps"].get<double>();
    if (!(gbps > 0)) continue;
    const std::string key = link == "intra-host" ? "intra_host" : "inter_host";
    out[key] = {{"alpha_us", lat.front()["alpha_us"].get<double>()},
                {"beta_gbps", gbps},
                {"from", "alpha: p2p latency fit " + std::to_string(lat.front()["from_bytes"].get<double>()) + ".." +
                             std::to_string(lat.front()["bytes"].get<double>()) + " B; beta: p2p bandwidth fit of the "
                             "largest sizes"}};
  }
  if (!out.contains("intra_host") && !out.contains("inter_host"))
    throw std::invalid_argument("'" + path + "' has no p2p fit rows with a bandwidth (run collbench p2p over more sizes)");
  for (auto [have, missing] : {std::pair{"intra_host", "inter_host"}, std::pair{"inter_host", "intra_host"}})
    if (out.contains(have) && !out.contains(missing)) {
      out[missing] = out[have];
      out["notes"].push_back(std::string(missing) + " copied from " + have + ": the p2p run had no such pair");
    }
  return out;
}

double timed_rate_gbps(DType dtype, const ReduceOp* op) {
  std::vector<SizeTime> points;
  const std::size_t elem = dtype_size(dtype);
  PageBytes a(std::size_t{16} << 20), b(a.size()), dst(a.size());
  for (std::size_t bytes = 64 << 10; bytes <= a.size(); bytes *= 4) {
    const std::size_t count = bytes / elem;
    double best = 1e30;
    for (int rep = 0; rep < 5; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      if (op) reduce(dtype, *op, dst.data(), a.data(), b.data(), count);
      else std::memcpy(dst.data(), a.data(), bytes);
      best = std::min(best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    points.push_back({static_cast<double>(bytes), std::max(best, 1e-3)});
  }
  const AlphaBetaRange r = fit_one_range(points);
  return r.beta_gbps();
}

int run_model_fit(const ModelFitOptions& o, const Invocation& inv) {
  if (inv.rank != 0) return 0;
  if (!o.overwrite && std::filesystem::exists(o.out_path))
    throw RunError("--out '" + o.out_path + "' exists; give --overwrite to replace it");
  std::ifstream in(o.p2p_path);
  if (!in) throw RunError("cannot read --p2p '" + o.p2p_path + "'");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw RunError("--p2p '" + o.p2p_path + "' is not JSON: " + e.what());
  }
  nlohmann::json links;
  try {
    links = links_from_p2p(doc, o.p2p_path);
  } catch (const std::invalid_argument& e) {
    throw RunError(e.what());
  }
  int rpn = o.ranks_per_node;
  if (rpn == 0 && doc.contains("metadata") && doc["metadata"].contains("hosts"))
    for (const auto& [host, ranks] : doc["metadata"]["hosts"].items()) rpn = std::max(rpn, static_cast<int>(ranks.size()));
  nlohmann::json model = {{"name", "fitted from " + o.p2p_path},
                          {"ranks_per_node", std::max(rpn, 1)},
                          {"intra_host", links["intra_host"]},
                          {"inter_host", links["inter_host"]},
                          {"reduce_gbps", nlohmann::json::object()},
                          {"copy_gbps", timed_rate_gbps(DType::f32, nullptr)},
                          {"overhead_us", 0}};
  for (DType d : kAllDTypes)
    for (ReduceOp op : kAllReduceOps)
      model["reduce_gbps"][std::string(dtype_name(d)) + ":" + std::string(reduce_op_name(op))] = timed_rate_gbps(d, &op);
  model["metadata"] = {{"tool", "collbench"},
                       {"git_revision", build_info::git_revision},
                       {"p2p", o.p2p_path},
                       {"p2p_metadata", doc.value("metadata", nlohmann::json::object())},
                       {"notes", links["notes"]},
                       {"reduce_and_copy", "timed on this process's core: the best of 5 calls at 64 KiB..16 MiB, "
                                           "fitted as c + bytes / rate"}};
  const std::string tmp = o.out_path + ".tmp";
  {
    std::ofstream out(tmp);
    out << json_text(model, 1) << "\n";
    if (!out) throw RunError("cannot write --out '" + o.out_path + "'");
  }
  std::filesystem::rename(tmp, o.out_path);
  std::printf("# model written to %s: intra-host alpha %.3f us beta %.4g GB/s; inter-host alpha %.3f us beta %.4g GB/s; "
              "f32 sum %.3g GB/s, copy %.3g GB/s\n",
              o.out_path.c_str(), model["intra_host"]["alpha_us"].get<double>(),
              model["intra_host"]["beta_gbps"].get<double>(), model["inter_host"]["alpha_us"].get<double>(),
              model["inter_host"]["beta_gbps"].get<double>(), model["reduce_gbps"]["f32:sum"].get<double>(),
              model["copy_gbps"].get<double>());
  return 0;
}

}  // namespace collbench
