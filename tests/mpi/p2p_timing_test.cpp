// The messages one round of a p2p test sends under each timing policy, and what the
// written test sends (every rank on its own: MPI only for the clock).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "harness/p2p/p2p_measure.hpp"

using namespace collbench;

namespace {

// Rank 0 of a pair with rank 1: completes every message at once and logs its bytes.
class MessageLog final : public Transport {
 public:
  std::vector<std::string> log;
  int rank() const override { return 0; }
  int size() const override { return 2; }
  std::string_view name() const override { return "log"; }
  std::vector<std::vector<std::byte>> sent;  // each send's bytes when it started
  Ticket start_send(const Message& m) override {
    sent.emplace_back(m.data, m.data + m.bytes);
    return add("send ", m);
  }
  Ticket start_recv(const Message& m) override { return add("recv ", m); }
  Ticket post_send(int, int, const std::byte*, std::size_t) override { return 0; }
  Ticket post_recv(int, int, std::byte*, std::size_t) override { return 0; }
  Completion wait_any(std::span<const Ticket>) override { return {}; }
  void wait_some(std::span<const Ticket> t, std::vector<std::size_t>& done) override {
    for (std::size_t i = 0; i < t.size(); ++i) done.push_back(i);
  }
  void wait_all(std::span<const Ticket>) override {}

 private:
  Ticket add(const std::string& what, const Message& m) {
    log.push_back(what + std::to_string(m.bytes));
    return static_cast<Ticket>(log.size());
  }
};

std::vector<std::string> latency_round(TimingPolicy timing) {
  MessageLog t;
  P2pBuffers b(t, 1024, 1);
  Repetitions reps;
  reps.warmup = 0;
  reps.iters = 2;
  run_pair_round(t, b, {"inter-host", 0, 1}, P2pTest::latency, 1000, 1, reps, timing, 0, false);
  return t.log;
}

}  // namespace

// Per call, the pair meets (4 bytes each way, untimed) before each timed iteration, as
// run's calls follow a barrier; in a loop the iterations follow each other at once.
TEST(P2pTiming, PerCallMeetsBeforeEachTimedIterationLoopDoesNot) {
  const std::vector<std::string> ping = {"send 1000", "recv 1000"};
  std::vector<std::string> loop = {"send 8"};  // the iteration count, to the peer
  std::vector<std::string> per_call = loop;
  for (int i = 0; i < 2; ++i) {
    loop.insert(loop.end(), ping.begin(), ping.end());
    per_call.insert(per_call.end(), {"recv 4", "send 4"});
    per_call.insert(per_call.end(), ping.begin(), ping.end());
  }
  EXPECT_EQ(latency_round(TimingPolicy::loop), loop);
  EXPECT_EQ(latency_round(TimingPolicy::per_call), per_call);
}

// The written test sends what the collectives' reduction kernel just stored over the
// buffer (i32 sum in place: each word doubled), not a memset's one repeated byte.
TEST(P2pWritten, SendsTheReductionKernelsOutput) {
  MessageLog t;
  P2pBuffers b(t, 1026, 1);
  std::vector<std::int32_t> before(256);
  for (std::size_t i = 0; i < before.size(); ++i) before[i] = static_cast<std::int32_t>(i * 7 + 1);
  std::memcpy(b.send.data(), before.data(), 1024);
  Repetitions reps;
  reps.warmup = 0;
  reps.iters = 1;
  run_pair_round(t, b, {"intra-host", 0, 1}, P2pTest::written, 1026, 1, reps, TimingPolicy::loop, 0, false);
  ASSERT_EQ(t.sent.size(), 2u);  // the iteration count, then the one written exchange
  const std::vector<std::byte>& sent = t.sent[1];
  ASSERT_EQ(sent.size(), 1026u);
  std::vector<std::int32_t> words(256);
  std::memcpy(words.data(), sent.data(), 1024);
  for (std::size_t i = 0; i < words.size(); ++i) EXPECT_EQ(words[i], 2 * before[i]) << "word " << i;
}

// The rewrite test exchanges first (the peer reads the send buffer), then stores the
// f32 sum of two arrays of its own (1 + 1) over the bytes it just sent.
TEST(P2pRewrite, StoresTheSumOverTheBytesJustSent) {
  MessageLog t;
  P2pBuffers b(t, 1026, 1);
  std::vector<float> before(256);
  for (std::size_t i = 0; i < before.size(); ++i) before[i] = static_cast<float>(i) + 0.5f;
  std::memcpy(b.send.data(), before.data(), 1024);
  Repetitions reps;
  reps.warmup = 0;
  reps.iters = 1;
  run_pair_round(t, b, {"intra-host", 0, 1}, P2pTest::rewrite, 1024, 1, reps, TimingPolicy::loop, 0, false);
  ASSERT_EQ(t.log, (std::vector<std::string>{"send 8", "recv 1024", "send 1024"}));
  std::vector<float> sent(256), after(256);
  std::memcpy(sent.data(), t.sent[1].data(), 1024);
  std::memcpy(after.data(), b.send.data(), 1024);
  EXPECT_EQ(sent, before);                   // sent as it was
  for (float x : after) EXPECT_EQ(x, 2.0f);  // then stored over
}
