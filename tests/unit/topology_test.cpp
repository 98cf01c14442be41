#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "collectives/process/progress.hpp"
#include "harness/common/topology.hpp"

using namespace collbench;

TEST(HostNames, OneNamePerPlaceIsFine) {
  EXPECT_EQ(host_name_conflict({"a", "a", "b"}, {"boot1 net:[1]", "boot1 net:[1]", "boot2 net:[1]"}), "");
  EXPECT_EQ(host_name_conflict({}, {}), "");
}

TEST(HostNames, OneNameFromTwoPlacesIsNamed) {
  // Two machines (a cloned image), and two network namespaces of one machine (emulated hosts).
  EXPECT_EQ(host_name_conflict({"n1", "n2", "n1"}, {"b1 net:[1]", "b2 net:[1]", "b3 net:[1]"}),
            "ranks 0 and 2 both report host name 'n1' but run on different machines (kernel boot ids differ): "
            "collbench groups ranks into nodes by host name and would merge them; give every host its own name");
  EXPECT_NE(host_name_conflict({"h1", "h1"}, {"b1 net:[4026531840]", "b1 net:[4026532999]"})
                .find("but run in different network namespaces of one machine: collbench"),
            std::string::npos);
}

TEST(HostNames, ThisProcessHasAnIdentity) {
  const std::string id = host_identity_here();
  EXPECT_EQ(id.substr(0, id.find(' ')), kernel_boot_id());
  EXPECT_NE(id.find("net:["), std::string::npos) << id;
}

// The watchdog names the ranks a stalled schedule step exchanges with, and their hosts.
TEST(Progress, DescribesTheStepsPeers) {
  progress::set_task("run allreduce, algorithm ring, 1024 bytes, round 1 of 1");
  progress::set_call("timed call", 2, 20);
  const std::vector<int> two = {2, 0};
  progress::set_step(1, 4, two);
  EXPECT_EQ(progress::describe(progress::snapshot(), {"h1", "h2", "h3"}),
            "run allreduce, algorithm ring, 1024 bytes, round 1 of 1, timed call 3 of 20, schedule step 2 of 4, "
            "exchanging with rank 2 (h3) and rank 0 (h1)");
  const std::vector<int> six = {1, 2, 3, 4, 5, 6};
  progress::set_step(0, 4, six);
  const std::string d = progress::describe(progress::snapshot());
  EXPECT_EQ(d.substr(d.find("schedule")),
            "schedule step 1 of 4, exchanging with rank 1, rank 2, rank 3, rank 4 and 2 more");
  progress::set_call("timed call", 3, 20);  // a new call: no step, no peers
  EXPECT_EQ(progress::describe(progress::snapshot()).find("exchanging"), std::string::npos);
}

// A rank in a control exchange names the rank it waits for; the wait's end is progress.
// Once a task was set, start-up labels change nothing: the run is measuring.
TEST(Progress, NamesTheRankAControlExchangeWaitsFor) {
  progress::set_task("run allreduce, 8 bytes, combining results");
  progress::set_startup("opening the outputs");
  EXPECT_FALSE(progress::snapshot().starting);
  progress::set_waiting_for(1);
  const progress::Snapshot waiting = progress::snapshot();
  EXPECT_EQ(progress::describe(waiting, {"h1", "h2"}), "run allreduce, 8 bytes, combining results, waiting for rank 1 (h2)");
  progress::set_waiting_for(-1);
  const progress::Snapshot done = progress::snapshot();
  EXPECT_GT(done.beats, waiting.beats);
  EXPECT_EQ(progress::describe(done).find("waiting"), std::string::npos);
}
