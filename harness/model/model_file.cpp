#include "harness/model/model_file.hpp"

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
  LinkCost link(const std::string& key) const {
    const nlohmann::json& l = object(j_, key, "");
    return {number(l, "alpha_us", key + ".", false), us_per_byte(number(l, "beta_gbps", key + ".", true))};
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
      m.reduce_gbps[key] = r.number(g, key, "reduce_gbps.", true);
    }
  }
  m.copy_gbps = j.contains("copy_gbps") ? r.number(j, "copy_gbps", "", true) : 0;
  m.overhead_us = r.number(j, "overhead_us", "", false, 0.0);
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
  const auto it = m.reduce_gbps.count(key) ? m.reduce_gbps.find(key) : m.reduce_gbps.find("default");
  p.reduce_us_per_byte = it == m.reduce_gbps.end() ? 0 : us_per_byte(it->second);
  p.copy_us_per_byte = us_per_byte(m.copy_gbps);
  p.overhead_us = m.overhead_us;
  return p;
}

}  // namespace collbench
