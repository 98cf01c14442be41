#pragma once
// Who sends how much to whom in an alltoallv: a pattern gives every (sender,
// receiver) pair a weight, and a size scales the weights to whole element counts.
// Patterns, as --counts spells them:
//   uniform           every pair alike (alltoall's traffic)
//   zipf:S[:SEED]     receivers skewed: the k-th most popular (a seeded permutation of
//                     the ranks, the same for every sender) gets 1/(k+1)^S
//   hot:R:SHARE       rank R receives SHARE (0..1) of what every rank sends, the rest
//                     spread evenly (hot:0:1: one rank receives everything)
//   moe:E[:ROUTING]   tokens routed to E experts spread evenly over the ranks, experts as
//                     popular as ROUTING says (uniform, zipf:S[:SEED], hot:EXPERT:SHARE,
//                     or a FILE.csv histogram): an MoE dispatch
//   FILE.csv          n rows (senders) of n non-negative weights (receivers), '#' comments
// Every rank computes the same matrix from the same text (and file: input_files.hpp
// checks that every rank read the same bytes).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/block_counts.hpp"

namespace collbench {

struct TrafficPattern {
  std::string text = "uniform";  // as given
  std::vector<double> weights;   // n * n, row = sender
  int nranks = 1;
};

// Throws std::invalid_argument with one message for a malformed pattern, a file that
// cannot be read, has the wrong shape, or holds a negative, non-finite or all-zero weight.
TrafficPattern parse_traffic_pattern(const std::string& text, int nranks);

// How popular each of `items` things is (experts a token is routed to, ranks a block
// goes to), from the same spellings: uniform, zipf:S[:SEED], hot:ITEM:SHARE, or a
// FILE.csv of one weight per item (a measured histogram). Throws as above.
std::vector<double> parse_popularity(const std::string& text, int items, const std::string& item);

// Whether weight(a, b) == weight(b, a) everywhere.
bool is_symmetric(const TrafficPattern& p);

// The pattern scaled to about `total` elements in all: every count floor(total * w /
// sum), the remainder one each to the largest fractions (ties to the first), the same
// on every machine. Exact for an asymmetric pattern; a symmetric one stays symmetric
// (an in-place alltoallv needs it), its remainder given to both of a pair, so its
// total may fall one element short.
SharedCounts scaled_counts(const TrafficPattern& p, std::size_t total);

// Per-peer block sizes and the busiest rank, for reports.
struct TrafficSummary {
  std::size_t min = 0, median = 0, max = 0;  // elements per (sender, receiver) block
  std::size_t busiest = 0;                   // most elements one rank sends or receives
  int busiest_rank = 0;
};
TrafficSummary summarize_traffic(const CountMatrix& m);

}  // namespace collbench
