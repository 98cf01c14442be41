#include "collectives/cost_model/model_file.hpp"

#include <cmath>
#include <fstream>
#include <stdexcept>

namespace collbench {
namespace {

double us_per_byte(double gbps) { return gbps > 0 ? 1e-3 / gbps : 0; }

class Reader {
 public:
  Reader(const nlohmann::json& j, std::string path) : j_(j), path_(std::move(path)) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("model file '" + path_ + "': " + what);
  }
  const nlohmann::json& object(const nlohmann::json& in, const std::string& key, const std::string& where) const {
    if (!in.contains(key)) fail("missing \"" + where + key + "\"");
    if (!in[key].is_object()) fail("\"" + where + key + "\" must be an object");
    return in[key];
  }
  double number(const nlohmann::json& in, const std::string& key, const std::string& where, bool positive,
                std::optional<double> fallback = std::nullopt) const {
    if (!in.contains(key)) {
      if (fallback) return *fallback;
      fail("missing \"" + where + key + "\"");
    }
    if (!in[key].is_number()) fail("\"" + where + key + "\" must be a number");
    const double v = in[key].get<double>();
    if (!std::isfinite(v) || v < 0 || (positive && v == 0))
      fail("\"" + where + key + "\" must be " + (positive ? "positive" : "zero or more") + ", not " + in[key].dump());
    return v;
  }
  // A rate in GB/s, {"alpha_us", "beta_gbps"}, or {"ranges": [...]} by size.
  Piecewise piecewise(const nlohmann::json& in, const std::string& key, const std::string& where) const {
    const std::string name = where + key;
    if (in.contains(key) && in[key].is_number()) return {0, us_per_byte(number(in, key, where, true))};
    const nlohmann::json& o = object(in, key, where);
    if (!o.contains("ranges"))
      return {number(o, "alpha_us", name + ".", false), us_per_byte(number(o, "beta_gbps", name + ".", true))};
    if (!o["ranges"].is_array() || o["ranges"].empty()) fail("\"" + name + ".ranges\" must be a list of ranges");
    Piecewise p;
    for (std::size_t i = 0; i < o["ranges"].size(); ++i) {
      const nlohmann::json& r = o["ranges"][i];
      const std::string at = name + ".ranges[" + std::to_string(i) + "].";
      if (!r.is_object()) fail("\"" + at + "\" must be an object");
      const double from = number(r, "from_bytes", at, false);
      if (!p.pieces.empty() && from <= p.pieces.back().from_bytes)
        fail("\"" + name + ".ranges\" must start at growing from_bytes");
      const bool flat = r.contains("beta_gbps") && r["beta_gbps"].is_null();
      p.pieces.push_back(
          {from, number(r, "alpha_us", at, false), flat ? 0 : us_per_byte(number(r, "beta_gbps", at, true))});
    }
    return p;
  }
  LinkCost link(const std::string& key) const {
    LinkCost l;
    static_cast<Piecewise&>(l) = piecewise(j_, key, "");
    if (j_[key].contains("exchange")) l.exchange = piecewise(j_[key], "exchange", key + ".");
    if (j_[key].contains("written")) l.written = piecewise(j_[key], "written", key + ".");
    if (j_[key].contains("stream")) l.stream = piecewise(j_[key], "stream", key + ".");
    if (j_[key].contains("rewrite")) l.rewrite = piecewise(j_[key], "rewrite", key + ".");
    if (j_[key].contains("receiver_copies")) {
      if (!j_[key]["receiver_copies"].is_boolean()) fail("\"" + key + ".receiver_copies\" must be true or false");
      l.receiver_copies = j_[key]["receiver_copies"].get<bool>();
    }
    if (j_[key].contains("pair_shares"))
      l.pair_shares_from_bytes =
          number(object(j_[key], "pair_shares", key + "."), "from_bytes", key + ".pair_shares.", false);
    // Where given, the means stand in for the medians (link_fit.cpp says why); only for
    // a cost the link has, so that leaving a cost out leaves its mean out too.
    if (j_[key].contains("exchange_means")) {
      const nlohmann::json& m = object(j_[key], "exchange_means", key + ".");
      const std::string at = key + ".exchange_means.";
      for (auto [cost, into] : {std::pair{"exchange", &l.exchange}, std::pair{"written", &l.written}})
        if (m.contains(cost) && j_[key].contains(cost)) *into = piecewise(m, cost, at);
    }
    return l;
  }

 private:
  const nlohmann::json& j_;
  std::string path_;
};

}  // namespace

CostModelFile parse_model(const nlohmann::json& j, const std::string& path) {
  const Reader r(j, path);
  if (!j.is_object()) r.fail("must be a JSON object");
  CostModelFile m;
  m.path = path;
  m.source = j;
  m.name = j.value("name", path);
  const double rpn = r.number(j, "ranks_per_node", "", true);
  if (rpn != std::floor(rpn) || rpn > 1 << 20) r.fail("\"ranks_per_node\" must be a whole number from 1 to 1048576");
  m.ranks_per_node = static_cast<int>(rpn);
  m.intra = r.link("intra_host");
  m.inter = r.link("inter_host");
  if (j.contains("reduce_gbps")) {
    const nlohmann::json& g = r.object(j, "reduce_gbps", "");
    for (const auto& [key, v] : g.items()) {
      const auto colon = key.find(':');
      if (key != "default" && (colon == std::string::npos || !kDTypeNames.parse(key.substr(0, colon)) ||
                               !kReduceOpNames.parse(key.substr(colon + 1))))
        r.fail("\"reduce_gbps\" key '" + key + "' is not \"default\" or dtype:op (e.g. f32:sum)");
      m.reduce[key] = r.piecewise(g, key, "reduce_gbps.");
    }
  }
  if (j.contains("copy_gbps")) m.copy = r.piecewise(j, "copy_gbps", "");
  m.overhead_us = r.number(j, "overhead_us", "", false, 0.0);
  if (j.contains("shared_ports")) {
    if (!j["shared_ports"].is_boolean()) r.fail("\"shared_ports\" must be true or false");
    m.shared_ports = j["shared_ports"].get<bool>();
  }
  return m;
}

CostModelFile load_model(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read model file '" + path + "'");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("model file '" + path + "' is not JSON: " + e.what());
  }
  return parse_model(j, path);
}

CostParams cost_params(const CostModelFile& m, DType dtype, ReduceOp op) {
  CostParams p;
  p.intra = m.intra;
  p.inter = m.inter;
  const std::string key = std::string(dtype_name(dtype)) + ":" + std::string(reduce_op_name(op));
  const auto it = m.reduce.count(key) ? m.reduce.find(key) : m.reduce.find("default");
  if (it != m.reduce.end()) p.reduce = it->second;
  p.copy = m.copy;
  p.overhead_us = m.overhead_us;
  p.shared_ports = m.shared_ports;
  return p;
}

}  // namespace collbench
