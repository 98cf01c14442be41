#include "harness/model/model_fit.hpp"

#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "collectives/cost_model/model_file.hpp"
#include "generated/build_info.hpp"
#include "harness/common/run_error.hpp"
#include "harness/common/writers.hpp"

namespace collbench {

namespace {

// Rank 0 reads the p2p result: {document, links}; throws RunError on bad input.
std::pair<nlohmann::json, nlohmann::json> read_p2p(const ModelFitOptions& o) {
  if (!o.overwrite && std::filesystem::exists(o.out_path))
    throw RunError("--out '" + o.out_path + "' exists; give --overwrite to replace it");
  std::ifstream in(o.p2p_path);
  if (!in) throw RunError("cannot read --p2p '" + o.p2p_path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return read_p2p_text(text.str(), o.p2p_path);
}

// Whether the receiving core copies a link's messages, from p2p's busy test: an exchange
// while each rank sums as many bytes elsewhere takes the longer of the two where the
// transfer goes on meanwhile, their sum where it waits for the core. Over the sizes from
// 64 KiB where the sum takes at least a tenth of the exchange (else it is lost in the
// exchange's own spread: a slow link's), the share of the shorter one that the busy
// exchange adds beyond the longer; over half: the receiver copies. Empty where the p2p
// run has no busy test for that link; false where no size qualifies (on a link much
// slower than memory a copy holds the core for a small part of the message's time).
nlohmann::json receiver_copies(const nlohmann::json& doc, const std::string& link, const Piecewise& sum) {
  std::map<double, double> exchange, busy;
  for (const nlohmann::json& r : doc["rows"])
    if (r.value("kind", "") == "measured" && r.value("link", "") == link && r.contains("p50_us") &&
        r["p50_us"].is_number() && json_field(r, "bytes").get<double>() >= 65536) {
      const std::string test = r.value("test", "");
      const double bytes = json_field(r, "bytes").get<double>();
      if (test == "exchange") exchange[bytes] = r["p50_us"].get<double>();
      if (test == "busy") busy[bytes] = r["p50_us"].get<double>();
    }
  double added = 0, shorter = 0;
  nlohmann::json sizes = nlohmann::json::array();
  for (const auto& [bytes, both] : busy) {
    if (!exchange.count(bytes)) continue;
    const double x = exchange[bytes], r = sum.us(bytes);
    const bool judged = r >= 0.1 * x;
    if (judged) added += both - std::max(x, r), shorter += std::min(x, r);
    sizes.push_back({{"bytes", bytes}, {"exchange_us", x}, {"sum_us", r}, {"busy_us", both}, {"judged", judged}});
  }
  if (sizes.empty()) return nullptr;
  if (shorter <= 0) return {{"copies", false}, {"share", nullptr}, {"sizes", sizes}};
  return {{"copies", added / shorter > 0.5}, {"share", added / shorter}, {"sizes", sizes}};
}

}  // namespace

std::pair<nlohmann::json, nlohmann::json> read_p2p_text(const std::string& text, const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw RunError("--p2p '" + path + "' is not JSON: " + e.what());
  }
  try {
    nlohmann::json links = links_from_p2p(doc, path);
    return {std::move(doc), std::move(links)};
  } catch (const std::invalid_argument& e) {
    throw RunError(e.what());
  } catch (const nlohmann::json::exception& e) {
    throw RunError("--p2p '" + path + "' is not a collbench p2p result (" + e.what() + ")");
  }
}

nlohmann::json model_from_p2p(const nlohmann::json& doc, const nlohmann::json& links, const nlohmann::json& copy,
                              const nlohmann::json& reductions, const ModelFitOptions& o, int fit_ranks) {
  // A field of the wrong type (a row's bytes, the hosts) is a file that is not a p2p result.
  try {
    int rpn = o.ranks_per_node;
    if (rpn == 0 && doc.contains("metadata") && doc["metadata"].contains("hosts"))
      for (const auto& [host, ranks] : doc["metadata"]["hosts"].items())
        rpn = std::max(rpn, static_cast<int>(ranks.size()));
    nlohmann::json model = {{"name", "fitted from " + o.p2p_path},
                            {"ranks_per_node", std::max(rpn, 1)},
                            {"intra_host", json_field(links, "intra_host")},  // null: not measured
                            {"inter_host", json_field(links, "inter_host")},
                            {"reduce_gbps", reductions},
                            {"copy_gbps", copy},
                            {"overhead_us", 0},
                            {"shared_ports", true}};
    // Whose core copies: per link measured, else as the link it was copied from. The sum's
    // time is read as the model file will be.
    const Piecewise sum = parse_model(model, o.out_path).reduce.at("f32:sum");
    nlohmann::json copies = nlohmann::json::object();
    for (auto [key, link] : {std::pair{"intra_host", "intra-host"}, std::pair{"inter_host", "inter-host"}})
      if (nlohmann::json c = receiver_copies(doc, link, sum); !c.is_null()) copies[key] = c;
    for (auto [key, other] : {std::pair{"intra_host", "inter_host"}, std::pair{"inter_host", "intra_host"}})
      if (!copies.contains(key) && copies.contains(other)) copies[key] = copies[other];
    for (const char* key : {"intra_host", "inter_host"})
      if (copies.contains(key)) model[key]["receiver_copies"] = copies[key]["copies"];
    model["metadata"] = {
        {"tool", "collbench"},
        {"git_revision", build_info::git_revision},
        {"p2p", o.p2p_path},
        {"p2p_metadata", doc.value("metadata", nlohmann::json::object())},
        {"notes", json_field(links, "notes")},
        {"reduce_and_copy",
         "timed by every rank of model fit at once (rank 0's times): the best of 20 "
         "calls (3 from 1 MiB) at 64 B..64 MiB in steps of 4, fitted piecewise as "
         "alpha + bytes / rate"},
        {"shared_ports",
         "not measured (a ping-pong cannot show it): messages a rank or host has in flight to "
         "different peers share its port's bandwidth, as TCP streams and shaped links do"},
        {"receiver_copies", copies.empty() ? nlohmann::json("not measured (no busy test in the p2p run): receivers' "
                                                            "copies taken as not holding their cores")
                                           : copies},
        {"fit_ranks", fit_ranks}};
    return model;
  } catch (const nlohmann::json::exception& e) {
    throw RunError("--p2p '" + o.p2p_path + "' is not a collbench p2p result (" + e.what() + ")");
  } catch (const std::invalid_argument& e) {  // links the model file refuses
    throw RunError("--p2p '" + o.p2p_path + "': " + e.what());
  }
}

int run_command(const ModelFitOptions& o, const Invocation& inv) {
  nlohmann::json doc, links;
  std::string refused;
  if (inv.rank == 0) try {
      std::tie(doc, links) = read_p2p(o);
    } catch (const RunError& e) {
      refused = e.what();
    }
  int bad = refused.empty() ? 0 : 1;
  MPI_Bcast(&bad, 1, MPI_INT, 0, inv.comm);
  if (bad) throw RunError(refused.empty() ? "refused on rank 0" : refused);
  // Every rank times the kernels at once, so the ranks of a host contend for memory
  // bandwidth as they do inside a collective; rank 0's times are kept.
  const std::function<void()> together = [&] { MPI_Barrier(inv.comm); };
  KernelTimer timer(kTimedBytes);
  const nlohmann::json copy = timer.timed_ranges(DType::f32, nullptr, together);
  nlohmann::json reductions = nlohmann::json::object();
  for (DType d : kAllDTypes)
    for (ReduceOp op : kAllReduceOps)
      reductions[std::string(dtype_name(d)) + ":" + std::string(reduce_op_name(op))] =
          timer.timed_ranges(d, &op, together);
  if (inv.rank != 0) return 0;
  const nlohmann::json model = model_from_p2p(doc, links, copy, reductions, o, inv.size);
  const std::string tmp = o.out_path + ".tmp";
  {
    std::ofstream out(tmp);
    out << json_text(model, 1) << "\n";
    if (!out) throw RunError("cannot write --out '" + o.out_path + "'");
  }
  std::filesystem::rename(tmp, o.out_path);
  auto describe = [&](const char* key) {
    const nlohmann::json& l = model[key];
    std::string text = std::string(key) + ": " + std::to_string(l["ranges"].size()) + " range(s), alpha " +
                       std::to_string(l["ranges"][0]["alpha_us"].get<double>()) + " us";
    const nlohmann::json& last = l["ranges"].back()["beta_gbps"];
    if (last.is_number()) text += ", largest sizes " + std::to_string(last.get<double>()) + " GB/s";
    if (l.contains("exchange")) {
      const nlohmann::json& x = l["exchange"]["ranges"].back()["beta_gbps"];
      if (x.is_number()) text += " (both ways at once " + std::to_string(x.get<double>()) + " GB/s)";
    }
    if (l.contains("written")) {
      const nlohmann::json& w = l["written"]["ranges"].back()["beta_gbps"];
      if (w.is_number()) text += " (just written " + std::to_string(w.get<double>()) + " GB/s)";
    }
    return text;
  };
  std::printf("# model written to %s\n#   %s\n#   %s\n", o.out_path.c_str(), describe("intra_host").c_str(),
              describe("inter_host").c_str());
  return 0;
}

}  // namespace collbench
