// The serving seam on the real ONNX Runtime runner (backends/serving.h, runners/ort/serve.mjs): samples prepared once,
// queries naming them (single, consecutive, wrapping around, several ranges stacked into one batch), many in flight at
// once, answers carrying the runtime call on the caller's own monotonic clock; a profiled serving inference session
// giving the kernels of the calls it served.
#include <poll.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "backends/onnxruntime/ort_backend.h"
#include "backends/serving.h"
#include "capacity/loadgen/sut.h"
#include "capacity/sut/served_model.h"
#include "core/temp_dir.h"
#include "support/ort_suite.h"

namespace fs = std::filesystem;
using namespace rooflens;
using namespace rooflens::testing;

namespace {

class CapacityRunnerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fresh_test_dir("rooflens-capacity-runner"));
    save_zoo_model("squeezenet1_0", {}, (*dir_ / "squeezenet.onnx").string());
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    if (!ort_runner_available()) GTEST_SKIP() << "onnxruntime-node is not installed: run `make deps`";
  }

  static ServingSpec spec(const capacity::ServedModel& w) {
    ServingSpec s;
    s.model = w.model;
    s.feed = w.feed;
    s.batch_inputs = w.batch_inputs;
    s.batch_dim = w.batch_dim;
    s.call_batch = 0;  // calls of 1 and 2 samples
    s.samples = 4;
    s.threads = 1;
    return s;
  }

  // Every answer to `tags` sent so far, waiting at most 30 s.
  static std::vector<InferReply> answers(ServingInstance& inst, size_t count) {
    std::vector<InferReply> out;
    for (int i = 0; i < 600 && out.size() < count; ++i) {
      pollfd p{inst.reply_fd(), POLLIN, 0};
      ::poll(&p, 1, 50);
      EXPECT_TRUE(inst.collect(out)) << inst.death();
    }
    return out;
  }

  static fs::path* dir_;
};
fs::path* CapacityRunnerTest::dir_ = nullptr;

}  // namespace

TEST_F(CapacityRunnerTest, QueriesNamePreparedSamplesAndAnswersCarryTheCallOnOurClock) {
  const capacity::ServedModel w = capacity::load_served_model((*dir_ / "squeezenet.onnx").string(), {}, {}, 0);
  ASSERT_EQ(w.batch_inputs, std::vector<std::string>{"input"});
  ASSERT_EQ(w.feed.dims.at("batch"), 1);
  auto backend = ort::make_ort_backend({});
  const int64_t sent = capacity::now_ns();
  std::unique_ptr<ServingInstance> inst = backend->serving()->start(spec(w));
  ASSERT_GT(inst->pid(), 0);
  // All four in flight at once: one sample, a consecutive pair (a view), a pair wrapping past the last sample, two
  // ranges stacked into one batch of two.
  const int64_t before = capacity::now_ns();
  ASSERT_TRUE(inst->send(1, {{{0, 1}}}));
  ASSERT_TRUE(inst->send(2, {{{1, 2}}}));
  ASSERT_TRUE(inst->send(3, {{{3, 2}}}));
  ASSERT_TRUE(inst->send(4, {{{0, 1}, {2, 1}}}));
  const std::vector<InferReply> got = answers(*inst, 4);
  const int64_t after = capacity::now_ns();
  ASSERT_EQ(got.size(), 4u);
  int64_t previous_end = before;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].tag, i + 1);                       // served one after another, in order
    EXPECT_TRUE(got[i].ok) << got[i].error;
    ASSERT_EQ(got[i].calls.size(), 1u);
    EXPECT_GE(got[i].calls[0].start_ns, previous_end);  // the runner's clock is ours (CLOCK_MONOTONIC)
    EXPECT_GT(got[i].calls[0].end_ns, got[i].calls[0].start_ns);
    EXPECT_LE(got[i].calls[0].end_ns, after);
    previous_end = got[i].calls[0].end_ns;
  }
  EXPECT_GT(before, sent);
  // A malformed message is refused and the runner keeps serving.
  ASSERT_TRUE(inst->send(5, {{{0, 0}}}));
  ASSERT_TRUE(inst->send(6, {{{2, 1}}}));
  const std::vector<InferReply> more = answers(*inst, 2);
  ASSERT_EQ(more.size(), 2u);
  EXPECT_FALSE(more[0].ok);
  EXPECT_NE(more[0].error.find("count >= 1"), std::string::npos) << more[0].error;
  EXPECT_TRUE(more[1].ok);
  // Several calls in one message (Offline's): run one after another, one reply with a span per call.
  const int64_t chained = capacity::now_ns();
  ASSERT_TRUE(inst->send(7, {{{0, 1}}, {{1, 2}}, {{3, 1}}}));
  const std::vector<InferReply> three = answers(*inst, 1);
  ASSERT_EQ(three.size(), 1u);
  ASSERT_TRUE(three[0].ok) << three[0].error;
  ASSERT_EQ(three[0].calls.size(), 3u);
  int64_t end = chained;
  for (const CallSpan& c : three[0].calls) {
    EXPECT_GE(c.start_ns, end);
    EXPECT_GT(c.end_ns, c.start_ns);
    end = c.end_ns;
  }
}

TEST_F(CapacityRunnerTest, AProfiledServingInferenceSessionGivesTheKernelsOfItsCalls) {
  const capacity::ServedModel w = capacity::load_served_model((*dir_ / "squeezenet.onnx").string(), {}, {}, 0);
  auto backend = ort::make_ort_backend({});
  TempDir work("rooflens-capacity-test");
  ServingSpec s = spec(w);
  s.profile = true;
  s.work_dir = work.path();
  s.call_batch = 1;
  std::unique_ptr<ServingInstance> inst = backend->serving()->start(s);
  for (uint64_t t = 1; t <= 5; ++t) ASSERT_TRUE(inst->send(t, {{{static_cast<int64_t>(t), 1}}}));
  ASSERT_EQ(answers(*inst, 5).size(), 5u);
  const Measurement m = inst->profile(1);  // the first call is warm-up
  ASSERT_FALSE(m.kernels.empty());
  EXPECT_EQ(m.profiled_runs_ms.size(), 4u);
  for (const auto& k : m.kernels) EXPECT_EQ(k.per_iteration_ms.size(), 4u) << k.name;
  EXPECT_TRUE(m.executed_graph.has_value());
  EXPECT_TRUE(fs::is_empty(work.path())) << "the profile directory is the caller's to delete, and was deleted";
}

TEST_F(CapacityRunnerTest, AKilledInstanceSaysHowItEnded) {
  const capacity::ServedModel w = capacity::load_served_model((*dir_ / "squeezenet.onnx").string(), {}, {}, 0);
  auto backend = ort::make_ort_backend({});
  std::unique_ptr<ServingInstance> inst = backend->serving()->start(spec(w));
  inst->kill();
  std::vector<InferReply> none;
  EXPECT_FALSE(inst->collect(none));
  EXPECT_FALSE(inst->send(1, {{{0, 1}}}));
}
