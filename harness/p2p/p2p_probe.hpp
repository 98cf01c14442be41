#pragma once
// p2p's tests between one pair of ranks per link class, one size and round at a time,
// accumulated into p2p's rows. `collbench p2p` sweeps its sizes with it; `run
// --probe-links` times the links inside the collectives' own launch, between their
// sizes, so a model fitted from them sees the machine as the collectives did.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/common/result_row.hpp"
#include "harness/p2p/p2p_options.hpp"
#include "harness/p2p/p2p_rows.hpp"

namespace collbench {

class P2pProbe {
 public:
  // Collective over comm. Buffers for messages up to max_bytes from `transport`.
  P2pProbe(Transport& transport, std::vector<LinkPair> pairs, std::vector<P2pTest> tests, std::size_t max_bytes,
           TimingPolicy timing, bool check, MPI_Comm comm);
  // One round of every pair and test at `bytes` (the ranks outside a pair sleep);
  // returns the wrong bytes every rank received, summed over ranks.
  std::int64_t measure_round(std::size_t bytes, int round, const Repetitions& reps, int window);
  // Rank 0: the measured rows of `bytes` (every round so far), p50s kept for fit_rows.
  std::vector<Row> measured_rows(std::size_t bytes, int window);
  // Rank 0: alpha and beta per size range, per pair and test, over the sizes measured.
  std::vector<Row> fit_rows(const FitSettings& fit) const;

 private:
  Transport& transport_;
  std::vector<LinkPair> pairs_;
  std::vector<P2pTest> tests_;
  P2pBuffers buffers_;
  TimingPolicy timing_;
  bool check_;
  MPI_Comm comm_;
  std::string transport_name_;
  std::map<std::size_t, std::map<std::pair<std::size_t, P2pTest>, P2pMeasured>> at_;  // bytes: (pair, test)
  std::map<std::pair<std::size_t, P2pTest>, std::vector<SizeTime>> p50s_;
};

// p2p's metadata block: the options and the pairs (with their hosts).
nlohmann::json p2p_metadata(const P2pOptions& o, const std::vector<LinkPair>& pairs,
                            const std::vector<std::string>& hosts);
// What each test, column and fit means.
nlohmann::json p2p_definitions();

}  // namespace collbench
