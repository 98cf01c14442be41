#pragma once
// A cost model file: what `collbench model` predicts with. Written by `model fit` from
// measurements, or by hand for a cluster one describes:
//   {"name": "8-GPU nodes", "ranks_per_node": 8,
//    "intra_host": {"alpha_us": 1.5, "beta_gbps": 400},
//    "inter_host": {"alpha_us": 5, "beta_gbps": 50},
//    "reduce_gbps": {"default": 200, "f32:sum": 300},   optional, default: free
//    "copy_gbps": 500,                                  optional, default: free
//    "overhead_us": 0.2,                                optional, default 0
//    "shared_ports": true}                              optional, default false: see CostParams
// Bandwidths are GB/s (1e9 bytes per second), as the rows report them. Where costs
// change with size (`model fit` writes them so), a link, reduce_gbps entry or copy_gbps
// may instead be {"ranges": [{"from_bytes": 0, "alpha_us": 0.2, "beta_gbps": 12}, ...]}
// (beta_gbps null: times that do not grow within the range), and a link may have an
// "exchange" cost in the same form: what a message costs while its ranks also send the
// other way (default: as one way), and a "written" cost: what a message costs whose bytes
// its sender wrote earlier in the call (default: as an untouched buffer's), a "stream"
// cost: a message's time in a stream of them (p2p's bandwidth test, per message; the part
// of alpha it does not overlap holds the ports: LinkCost::stream), and
// "receiver_copies": true where the receiving core copies each message, and
// "pair_shares": {"from_bytes": N}, the size from which one pair's messages in flight at
// once share its bandwidth, with shared ports (LinkCost).
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "collectives/cost_model/cost_simulator.hpp"
#include "collectives/dtype.hpp"

namespace collbench {

struct CostModelFile {
  std::string name, path;
  int ranks_per_node = 1;
  LinkCost intra, inter;
  std::map<std::string, Piecewise> reduce;  // "dtype:op" or "default"
  Piecewise copy;                           // no pieces: free
  double overhead_us = 0;
  bool shared_ports = false;
  nlohmann::json source;  // the file as read
};

// Throws std::invalid_argument naming the file and the field on anything missing,
// mistyped, non-finite, or a bandwidth that is not positive.
CostModelFile parse_model(const nlohmann::json& j, const std::string& path);
CostModelFile load_model(const std::string& path);

// The simulator's parameters for one (dtype, op): its reduce_gbps entry, else "default".
CostParams cost_params(const CostModelFile& m, DType dtype, ReduceOp op);

}  // namespace collbench
