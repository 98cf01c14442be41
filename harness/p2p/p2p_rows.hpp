#pragma once
// p2p's rows: one per test, link and size (kind "measured"), then one per fitted size
// range (kind "fit"), under one set of columns; a column a kind does not fill is empty.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/cost_model/alpha_beta.hpp"
#include "harness/common/result_row.hpp"
#include "harness/p2p/p2p_measure.hpp"

namespace collbench {

struct P2pMeasured {
  P2pTest test = P2pTest::latency;
  LinkPair pair;
  std::string transport;
  std::size_t bytes = 0;
  int window = 1, warmup = 0, rounds = 1;
  std::vector<double> us, round_mean_us;  // per message, all rounds
  std::int64_t wrong = 0;                 // -1: not checked
};

std::vector<std::string> p2p_columns();
Row p2p_measured_row(const P2pMeasured& m);
Row p2p_fit_row(P2pTest test, const LinkPair& pair, const std::string& transport, const AlphaBetaRange& r);
void print_p2p_header(const nlohmann::json& metadata);

}  // namespace collbench
