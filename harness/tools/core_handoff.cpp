// collbench-core-handoff: how far apart two CPUs are, as two ranks of one host meet it.
// Two threads pinned to CPU A and CPU B hand one cache line back and forth (the one-way
// time: about 30 ns between cores sharing a cache here, 5x that between cores that do
// not), and thread A stores the collectives' f32 sum over a buffer thread B has just read
// (what shared memory's receiver leaves a sender's next reduction into the block it
// sent), against the same sum into a buffer nobody else read.
// Usage: collbench-core-handoff [CPU_A CPU_B]   (default 0 1)
// Prints one line: handoff_ns=… rewrite_BYTES_us=… plain_BYTES_us=… per size.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "collectives/kernels/reduce_kernels.hpp"

namespace {

using Clock = std::chrono::steady_clock;

bool pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One-way time of a cache line handed back and forth, in ns.
double handoff_ns(int a, int b) {
  constexpr int kRounds = 100000;
  alignas(64) static std::atomic<int> flag{0};
  flag = 0;
  std::thread peer([&] {
    pin(b);
    for (int i = 0; i < kRounds; ++i) {
      while (flag.load(std::memory_order_acquire) != 2 * i + 1) {}
      flag.store(2 * i + 2, std::memory_order_release);
    }
  });
  pin(a);
  const auto t0 = Clock::now();
  for (int i = 0; i < kRounds; ++i) {
    flag.store(2 * i + 1, std::memory_order_release);
    while (flag.load(std::memory_order_acquire) != 2 * i + 2) {}
  }
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / kRounds / 2;
  peer.join();
  return ns;
}

// Medians over rounds of the f32 sum (a + b) stored over `bytes` that the peer read just
// before, and over `bytes` nobody else touches, in us.
std::pair<double, double> rewrite_us(int a, int b, std::size_t bytes) {
  const std::size_t n = bytes / sizeof(float);
  const int rounds = bytes > (std::size_t{1} << 20) ? 30 : 100;
  std::vector<float> read_by_peer(n, 1.0f), own(n, 1.0f), x(n, 1.0f), y(n, 1.0f);
  std::atomic<int> turn{0};
  std::vector<double> after_read, plain;
  std::thread reader([&] {
    pin(b);
    volatile float sink = 0;
    for (int r = 0; r < rounds; ++r) {
      while (turn.load() != 2 * r + 1) {}
      float s = 0;
      for (std::size_t i = 0; i < n; ++i) s += read_by_peer[i];
      sink = sink + s;
      turn.store(2 * r + 2);
    }
  });
  pin(a);
  auto timed = [&](float* dst) {
    const auto t0 = Clock::now();
    collbench::reduce(collbench::DType::f32, collbench::ReduceOp::sum, dst, x.data(), y.data(), n);
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  };
  for (int r = 0; r < rounds; ++r) {
    after_read.push_back(timed(read_by_peer.data()));  // from round 1 on, lines the reader holds
    plain.push_back(timed(own.data()));
    turn.store(2 * r + 1);
    while (turn.load() != 2 * r + 2) {}
  }
  reader.join();
  after_read.erase(after_read.begin());  // round 0: nobody had read them yet
  return {median(after_read), median(plain)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 1 && argc != 3) {
    std::fprintf(stderr, "usage: collbench-core-handoff [CPU_A CPU_B]\n");
    return 2;
  }
  auto cpu = [](const char* text) {  // -1 unless a whole number
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    return end != text && *end == 0 && v >= 0 && v < 1 << 20 ? static_cast<int>(v) : -1;
  };
  const int a = argc == 3 ? cpu(argv[1]) : 0, b = argc == 3 ? cpu(argv[2]) : 1;
  if (a < 0 || b < 0) {
    std::fprintf(stderr, "collbench-core-handoff: CPU_A and CPU_B must be CPU numbers, not '%s' '%s'\n", argv[1],
                 argv[2]);
    return 2;
  }
  if (a == b || !pin(a) || !pin(b)) {
    std::fprintf(stderr, "collbench-core-handoff: CPUs %d and %d must be two CPUs this process may run on\n", a, b);
    return 2;
  }
  std::printf("handoff_ns=%.0f", handoff_ns(a, b));
  for (std::size_t bytes : {std::size_t{256} << 10, std::size_t{2} << 20}) {
    const auto [rewrite, plain] = rewrite_us(a, b, bytes);
    std::printf(" rewrite_%zu_us=%.1f plain_%zu_us=%.1f", bytes, rewrite, bytes, plain);
  }
  std::printf("\n");
  return 0;
}
