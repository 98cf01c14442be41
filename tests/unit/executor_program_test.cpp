// The executor's recorded program (schedule_executor.hpp) must make exactly the
// transport calls its deciding loop makes, for every reference schedule.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/schedule/schedule_executor.hpp"
#include "harness/common/default_registry.hpp"

using namespace collbench;

namespace {

// Completes whatever it is asked to wait for, and logs every call with its arguments.
class CallLog final : public Transport {
 public:
  std::vector<std::string> log;
  int rank() const override { return 0; }
  int size() const override { return 2; }
  std::string_view name() const override { return "log"; }
  Ticket start_send(const Message& m) override { return add("send", m); }
  Ticket start_recv(const Message& m) override { return add("recv", m); }
  Ticket post_send(int, int, const std::byte*, std::size_t) override { return 0; }
  Ticket post_recv(int, int, std::byte*, std::size_t) override { return 0; }
  Completion wait_any(std::span<const Ticket>) override { return {}; }
  void wait_some(std::span<const Ticket> t, std::vector<std::size_t>& done) override {
    log.push_back("wait_some");
    for (std::size_t i = 0; i < t.size(); ++i) done.push_back(i);
  }
  void wait_all(std::span<const Ticket> t) override {
    std::vector<Ticket> sorted(t.begin(), t.end());
    std::sort(sorted.begin(), sorted.end());
    std::ostringstream line;
    line << "wait_all";
    for (Ticket x : sorted) line << ' ' << x;
    log.push_back(line.str());
  }

 private:
  int next_ = 0;
  Ticket add(const char* what, const Message& m) {
    std::ostringstream line;
    line << what << " peer " << m.peer << " bytes " << m.bytes << " at " << static_cast<const void*>(m.data);
    log.push_back(line.str());
    return next_++;
  }
};

}  // namespace

TEST(ExecutorProgram, ReplaysExactlyTheCallsTheDecidingLoopMakes) {
  int programs = 0, schedules = 0;
  for (const CollectiveTraits& c : kCollectiveTraits)
    for (const AlgorithmEntry* a : default_registry().for_collective(c.id)) {
      if (a->is_baseline()) continue;
      for (int n : {2, 3, 5, 8})
        for (std::size_t count : {std::size_t{1}, std::size_t{1000}, std::size_t{70000}})
          for (int rank = 0; rank < n; ++rank) {
            const AlgorithmParams params{};
            const ScheduleRequest req{c.id, n, rank, count, 1 % n, 4, &params};
            const Schedule s = a->build(req);
            const BufferLayout layout = buffer_layout(c.id, count, n, rank, 1 % n, false);
            std::vector<std::byte> send(layout.send_count * 4 + 4), recv(layout.recv_count * 4 + 4),
                scratch(s.scratch_count * 4 + 4);
            const CollectiveCall call{c.id, DType::f32, ReduceOp::sum, count, 1 % n, send.data(), recv.data(), false};
            const BoundSchedule bound(s, call, layout, scratch.data(), scratch.size());
            ++schedules;
            if (!bound.precompiled()) continue;
            ++programs;
            CallLog replayed, decided;
            bound.run(replayed);
            bound.run_deciding(decided);
            ASSERT_EQ(replayed.log, decided.log)
                << c.name << "/" << a->name << " n=" << n << " rank " << rank << " count " << count;
            for (const std::string& line : decided.log) ASSERT_NE(line, "wait_some");
          }
    }
  // Every reference schedule today waits only for sets known in advance.
  EXPECT_EQ(programs, schedules);
}
