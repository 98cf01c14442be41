#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "harness/replay/timeline.hpp"
#include "workloads/bucketing.hpp"
#include "workloads/compute_model.hpp"
#include "workloads/workload.hpp"
#include "workloads/workload_csv.hpp"
#include "workloads/zipf.hpp"

using namespace collbench;

namespace {

std::size_t count_named(const Workload& w, const std::string& suffix) {
  std::size_t n = 0;
  for (const auto& t : w.tensors) n += t.name.ends_with(suffix);
  return n;
}

// A temporary CSV file holding `text`.
class TempCsv {
 public:
  // The process id too: ctest runs each test in its own process, in parallel.
  explicit TempCsv(const std::string& text)
      : path_(testing::TempDir() + "collbench-" + std::to_string(getpid()) + "-" + std::to_string(++counter_) +
              ".csv") {
    std::ofstream(path_) << text;
  }
  ~TempCsv() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Workloads, ResNet50MatchesTorchvision) {
  const Workload w = load_workload("resnet50");
  EXPECT_EQ(w.tensors.size(), 161u);
  EXPECT_EQ(w.parameters(), 25557032u);
  EXPECT_EQ(w.bytes(), 4 * 25557032u);
  EXPECT_EQ(count_named(w, "conv1.weight") + count_named(w, "conv2.weight") + count_named(w, "conv3.weight") +
                count_named(w, "downsample.0.weight"),
            53u);  // the stem, 16 blocks of 3, 4 projection shortcuts
  // Backward order: the classifier first, the stem last.
  EXPECT_EQ(w.tensors.front().name, "fc.bias");
  EXPECT_EQ(w.tensors[1].name, "fc.weight");
  EXPECT_EQ(w.tensors.back().name, "conv1.weight");
  EXPECT_EQ(w.sparse_tensors(), 0u);
}

TEST(Workloads, BertMatchesHuggingFaceWithPooler) {
  const Workload base = load_workload("bert-base"), large = load_workload("bert-large");
  EXPECT_EQ(base.parameters(), 109482240u);
  EXPECT_EQ(large.parameters(), 335141888u);
  EXPECT_EQ(base.tensors.size(), 5u + 12 * 16 + 2);
  EXPECT_EQ(large.tensors.size(), 5u + 24 * 16 + 2);
  EXPECT_EQ(base.tensors.front().name, "pooler.dense.bias");
  EXPECT_EQ(base.tensors.back().name, "embeddings.word_embeddings.weight");
}

TEST(Workloads, Lm1bHasSparseEmbeddingAndSoftmax) {
  WorkloadOptions o;
  o.batch = 64;
  o.seq_len = 10;
  const Workload w = load_workload("lm1b", o);
  ASSERT_EQ(w.sparse_tensors(), 3u);
  const GradientTensor& emb = w.tensors.back();
  EXPECT_EQ(emb.name, "embedding.weight");
  EXPECT_TRUE(emb.sparse);
  EXPECT_EQ(emb.rows, 793470u);
  EXPECT_EQ(emb.row_elements, 512u);
  EXPECT_EQ(emb.lookups, 640u);
  EXPECT_EQ(w.tensors.front().name, "softmax.weight");
  EXPECT_EQ(w.tensors.front().lookups, 640u + 8192);
  EXPECT_EQ(w.parameters(), 2 * 793470u * 512 + 793470 + 4 * 2048 * 1024 + 4 * 2048 + 2048 * 512);
}

TEST(Workloads, UnknownNameListsTheBuiltins) {
  EXPECT_EQ(error_of([] { load_workload("vgg16"); }),
            "unknown workload 'vgg16'; valid: resnet50, bert-base, bert-large, lm1b, mixtral-8x7b, deepseek-v3, dlrm-dcnv2, or a FILE.csv");
}

TEST(ComputeModel, SplitsComputeByFlopsWithBackwardTwiceForward) {
  const Workload w = load_workload("resnet50");
  const ComputeModel m = compute_from_flops(w, 104, 4);
  EXPECT_NEAR(m.total_ms(), 104, 1e-9);
  EXPECT_NEAR(m.backward_total_ms(), 2 * m.forward_ms, 1e-9);
  EXPECT_DOUBLE_EQ(m.optimizer_ms, 4);
  for (std::size_t i = 1; i < m.ready_ms.size(); ++i) EXPECT_GE(m.ready_ms[i], m.ready_ms[i - 1]);
  // fc.weight shares the classifier's moment with fc.bias; conv1 (the stem) is 118 MFLOPs of 4.1 G.
  EXPECT_GT(m.backward_ms[0], 0);
  EXPECT_EQ(m.backward_ms[1], 0);
  EXPECT_NEAR(m.backward_ms.back() / m.backward_total_ms(), 2 * 118013952.0 / (2 * 4.1e9), 0.003);
  EXPECT_NE(error_of([&] { compute_from_flops(w, 10, 10); }), "");
  EXPECT_NE(error_of([&] { compute_from_flops(w, 0); }), "");
}

namespace {

// Tensors of the given byte sizes (f32), ready one millisecond apart.
Workload sized(const std::vector<std::size_t>& bytes, std::vector<double>* ready) {
  Workload w;
  w.name = "sized";
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    GradientTensor t;
    t.name = "t";
    t.name += std::to_string(i);  // (GCC 12 warns falsely about "t" + string)
    t.elements = bytes[i] / 4;
    w.tensors.push_back(t);
    ready->push_back(static_cast<double>(i + 1));
  }
  return w;
}

std::vector<std::vector<std::size_t>> groups(const std::vector<Bucket>& buckets) {
  std::vector<std::vector<std::size_t>> out;
  for (const Bucket& b : buckets) out.push_back(b.tensors);
  return out;
}

constexpr std::size_t MiB = std::size_t{1} << 20;

}  // namespace

TEST(Bucketing, DdpClosesABucketOnceItReachesTheCapFirstAtOneMiB) {
  std::vector<double> ready;
  // 0.5 + 0.5 MiB reach the first cap; then 10 + 10 + 10 MiB pass 25 MiB with the third.
  const Workload w = sized({MiB / 2, MiB / 2, 10 * MiB, 10 * MiB, 10 * MiB, 4 * MiB}, &ready);
  BucketingOptions o;
  const auto b = make_buckets(w, ready, o, false);
  EXPECT_EQ(groups(b), (std::vector<std::vector<std::size_t>>{{0, 1}, {2, 3, 4}, {5}}));
  EXPECT_EQ(b[0].bytes, MiB);
  EXPECT_EQ(b[1].bytes, 30 * MiB);
  EXPECT_DOUBLE_EQ(b[1].ready_ms, 5);  // its last tensor's moment
  // One byte short of the first cap keeps the bucket open.
  std::vector<double> ready2;
  const Workload w2 = sized({MiB / 2, MiB / 2 - 4, 4}, &ready2);
  EXPECT_EQ(groups(make_buckets(w2, ready2, o, false)), (std::vector<std::vector<std::size_t>>{{0, 1, 2}}));
}

TEST(Bucketing, NoneIsOneBucketPerTensor) {
  std::vector<double> ready;
  const Workload w = sized({4, 8, 12}, &ready);
  BucketingOptions o;
  o.policy = BucketingPolicy::none;
  EXPECT_EQ(groups(make_buckets(w, ready, o, false)), (std::vector<std::vector<std::size_t>>{{0}, {1}, {2}}));
}

TEST(Bucketing, FusionFusesWhatEachCycleFindsReadyUpToTheThreshold) {
  std::vector<double> ready;
  const Workload w = sized({MiB, MiB, MiB, MiB, 8 * MiB, MiB}, &ready);  // ready at 1..6 ms
  BucketingOptions o;
  o.policy = BucketingPolicy::fusion;
  o.cycle_ms = 2.5;  // ticks at 2.5, 5, 7.5: {0,1}, {2,3,4}, {5}
  o.fusion_threshold_bytes = 4 * MiB;
  const auto b = make_buckets(w, ready, o, false);
  // The 8 MiB tensor exceeds the threshold and goes alone; the next starts a new buffer.
  EXPECT_EQ(groups(b), (std::vector<std::vector<std::size_t>>{{0, 1}, {2, 3}, {4}, {5}}));
  EXPECT_DOUBLE_EQ(b[0].ready_ms, 2.5);
  EXPECT_DOUBLE_EQ(b[3].ready_ms, 7.5);
  o.fusion_threshold_bytes = 16 * MiB;
  EXPECT_EQ(groups(make_buckets(w, ready, o, false)), (std::vector<std::vector<std::size_t>>{{0, 1}, {2, 3, 4}, {5}}));
}

TEST(Bucketing, SparseTensorsTravelAloneAsRows) {
  const Workload w = load_workload("lm1b");
  std::vector<double> ready(w.tensors.size(), 0.0);
  BucketingOptions o;
  const auto rows = make_buckets(w, ready, o, true);
  std::size_t sparse = 0;
  for (const Bucket& b : rows) {
    if (!b.sparse) continue;
    ++sparse;
    EXPECT_EQ(b.tensors.size(), 1u);
  }
  EXPECT_EQ(sparse, 3u);
  for (const Bucket& b : make_buckets(w, ready, o, false)) EXPECT_FALSE(b.sparse);
}

TEST(Bucketing, DdpBucketsOfResNet50) {
  const Workload w = load_workload("resnet50");
  const ComputeModel m = compute_from_flops(w, 100);
  const auto b = make_buckets(w, m.ready_ms, BucketingOptions{}, false);
  std::size_t tensors = 0, bytes = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    tensors += b[i].tensors.size();
    bytes += b[i].bytes;
    if (i + 1 < b.size()) {
      EXPECT_GE(b[i].bytes, i == 0 ? MiB : 25 * MiB);
    }
  }
  EXPECT_EQ(tensors, 161u);
  EXPECT_EQ(bytes, w.bytes());
  EXPECT_EQ(b.front().tensors, (std::vector<std::size_t>{0, 1}));  // fc alone passes 1 MiB (8 MB)
}

TEST(Zipf, SeededDistinctRowsInRange) {
  const ZipfSampler z(1000, 1.0);
  const auto a = z.touched_rows(500, 7, 0, 3, 0);
  EXPECT_EQ(a, z.touched_rows(500, 7, 0, 3, 0));
  EXPECT_NE(a, z.touched_rows(500, 7, 1, 3, 0));  // another rank
  EXPECT_NE(a, z.touched_rows(500, 7, 0, 4, 0));  // another step
  EXPECT_NE(a, z.touched_rows(500, 8, 0, 3, 0));  // another seed
  ASSERT_FALSE(a.empty());
  EXPECT_LE(a.size(), 500u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_EQ(std::set<std::uint64_t>(a.begin(), a.end()).size(), a.size());
  EXPECT_LT(a.back(), 1000u);
  EXPECT_EQ(a.front(), 0u);  // the most frequent row is essentially always drawn
  // Skew: far fewer distinct rows than a uniform draw would touch (about 393 of 1000).
  EXPECT_LT(a.size(), 300u);
  EXPECT_GT(a.size(), 100u);
  // Exponent 0 is uniform; one row gives one row.
  EXPECT_GT(ZipfSampler(1000, 0).touched_rows(500, 7, 0, 3, 0).size(), 330u);
  EXPECT_EQ(ZipfSampler(1, 1.2).touched_rows(50, 1, 0, 0, 0), (std::vector<std::uint64_t>{0}));
  EXPECT_NE(error_of([] { ZipfSampler(0, 1); }), "");
  EXPECT_NE(error_of([] { ZipfSampler(10, -1); }), "");
}

TEST(WorkloadCsv, ReadsTensorsWithDefaultsAndComments) {
  TempCsv f(
      "# exported\nname,elements,dtype,kind,rows,row_elements,lookups,flops\n"
      "head.bias,10,f32,dense,,,,0\nhead.weight,1000,f16,dense,,,,200\n"
      "emb,4096,f32,sparse,64,64,100,50\n");
  const Workload w = load_workload(f.path());
  ASSERT_EQ(w.tensors.size(), 3u);
  EXPECT_EQ(w.tensors[1].dtype, DType::f16);
  EXPECT_EQ(w.tensors[1].bytes(), 2000u);
  EXPECT_TRUE(w.tensors[2].sparse);
  EXPECT_EQ(w.tensors[2].lookups, 100u);
  EXPECT_DOUBLE_EQ(w.tensors[1].flops, 200);
  // Without flops, compute follows the parameter count.
  TempCsv g("elements,name\n30,a\n10,b\n");
  const Workload v = load_workload(g.path());
  EXPECT_DOUBLE_EQ(v.tensors[0].flops, 30);
  const ComputeModel m = compute_from_flops(v, 12);
  EXPECT_NEAR(m.backward_ms[0], 6, 1e-12);
  EXPECT_NEAR(m.backward_ms[1], 2, 1e-12);
}

TEST(WorkloadCsv, MalformedFilesNameTheLine) {
  auto error_for = [](const std::string& text) {
    TempCsv f(text);
    return error_of([&] { read_workload_csv(f.path()); });
  };
  auto ends = [](const std::string& e, const std::string& tail) { return e.ends_with(tail) ? tail : e; };
  // The parser's own errors name the line too.
  EXPECT_NE(error_for("name,elements\na,10\nb,x\n").find("line \"3\""), std::string::npos);
  EXPECT_NE(error_for("name,elements\na,10,3\n").find("Too many columns in line 2"), std::string::npos);
  const std::pair<const char*, const char*> cases[] = {
      {"name,elements\na,10\na,5\n", " line 3: tensor 'a' appears twice"},
      {"name,elements,dtype\na,10,f8\n", " line 2: unknown dtype 'f8'; valid: f32, f64, f16, bf16, i32, i64"},
      {"name,elements,kind\na,10,sparse\n", " line 2: sparse tensor 'a' needs rows, row_elements and lookups"},
      {"name,elements,kind,rows,row_elements,lookups\na,10,sparse,3,3,1\n",
       " line 2: rows x row_elements (3 x 3) is not elements (10)"},
      {"name,elements\na,0\n", " line 2: tensor 'a' has no elements"},
      {"name,elements,kind\na,4,embedding\n", " line 2: kind must be dense or sparse, not 'embedding'"},
      {"name,size\na,4\n", ": the header has no 'elements' column"},
      {"name,elements\n", ": no tensors"},
  };
  for (const auto& [text, tail] : cases) {
    const std::string e = error_for(text);
    EXPECT_TRUE(e.starts_with("workload ")) << e;
    EXPECT_EQ(ends(e, tail), tail);
  }
  EXPECT_NE(error_of([] {
              read_workload_csv("/nonexistent/w.csv");
            }).find("workload /nonexistent/w.csv: cannot read: No such file or directory"),
            std::string::npos);
}

TEST(WorkloadCsv, ProfileGivesPerTensorTimes) {
  TempCsv wf("name,elements\na,10\nb,10\nc,10\n");
  const Workload w = read_workload_csv(wf.path());
  TempCsv pf("name,ms\nforward,3\nc,2.5\na,1\noptimizer,0.5\n");
  const ComputeModel m = compute_from_profile(read_compute_profile_csv(pf.path(), w));
  EXPECT_EQ(m.ready_ms, (std::vector<double>{1, 1, 3.5}));
  EXPECT_DOUBLE_EQ(m.total_ms(), 7);
  TempCsv bad("name,ms\nforward,3\nd,1\n");
  const std::string e = error_of([&] { read_compute_profile_csv(bad.path(), w); });
  EXPECT_NE(e.find("line 3: 'd' is not a tensor of workload"), std::string::npos) << e;
}

TEST(ReplayTimeline, ExchangesOverlapBackwardAndQueueOnOneStream) {
  ComputeModel m;
  m.forward_ms = 10;
  m.backward_ms = {5, 5, 10};
  m.ready_ms = {5, 10, 20};
  m.optimizer_ms = 2;
  // The first exchange (ready at 5) runs 8 ms: the second (ready at 10) waits until 13;
  // the third starts when backward ends and finishes 4 ms later.
  const StepTimeline t = lay_out_step(m, {5, 10, 20}, {8, 3, 4});
  EXPECT_EQ(t.start_ms, (std::vector<double>{15, 23, 30}));
  EXPECT_EQ(t.end_ms, (std::vector<double>{23, 26, 34}));
  EXPECT_DOUBLE_EQ(t.compute_ms, 32);
  EXPECT_DOUBLE_EQ(t.comm_ms, 15);
  EXPECT_DOUBLE_EQ(t.step_ms, 36);
  EXPECT_DOUBLE_EQ(t.exposed_ms(), 4);
  EXPECT_DOUBLE_EQ(t.efficiency(), 32.0 / 36);
  // Communication that fits inside backward is hidden entirely.
  const StepTimeline hidden = lay_out_step(m, {0, 5, 10}, {1, 1, 1});
  EXPECT_DOUBLE_EQ(hidden.step_ms, 32);
  EXPECT_DOUBLE_EQ(hidden.exposed_ms(), 0);
  // A long first exchange delays everything behind it.
  const StepTimeline queued = lay_out_step(m, {5, 10, 20}, {50, 1, 1});
  EXPECT_DOUBLE_EQ(queued.step_ms, 15 + 52 + 2);
}
