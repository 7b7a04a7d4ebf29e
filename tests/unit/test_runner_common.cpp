// The generic parts of in-binary runners: the measured loop on the real clock (its rules, shared with
// runners/ort/timed_loop.mjs, case by case on a fake clock in test_timed_loop_spec.cpp), base64, the feed and tensor
// wire forms, and the seeded input generator's known values.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "backends/common/feeds.h"
#include "backends/common/runner_wire.h"
#include "backends/common/timed_loop.h"
#include "core/base64.h"

using namespace rooflens;

TEST(TimedLoop, WarmsUpAndMeasuresAtLeastTheMinimums) {
  TimingOptions t;
  t.warmup_iterations = 3;
  t.warmup_ms = 0;
  t.iterations = 7;
  t.duration_s = 0;
  int calls = 0;
  TimedLoopResult r = run_timed_loop(t, [&] { ++calls; });
  EXPECT_EQ(r.warmup_iterations, 3);
  EXPECT_EQ(r.latencies_ms.size(), 7u);
  EXPECT_EQ(calls, 10);
  EXPECT_EQ(r.stop_reason, "min_reached");
  EXPECT_FALSE(r.median_ci_ms);
}

TEST(TimedLoop, DurationKeepsGoingAndCapsStop) {
  TimingOptions t;
  t.warmup_iterations = 0;
  t.warmup_ms = 0;
  t.iterations = 1;
  t.duration_s = 0.05;
  TimedLoopResult r = run_timed_loop(t, [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); });
  EXPECT_GT(r.latencies_ms.size(), 1u);
  EXPECT_GE(r.wall_s, 0.05);
  t.duration_s = 100;
  t.max_iterations = 5;
  r = run_timed_loop(t, [] {});
  EXPECT_EQ(r.latencies_ms.size(), 5u);
  EXPECT_EQ(r.stop_reason, "max_iterations");
  // Asking for more runs than the cap raises the cap, as the ORT runner's message does.
  t.iterations = 8;
  r = run_timed_loop(t, [] {});
  EXPECT_EQ(r.latencies_ms.size(), 8u);
}

TEST(TimedLoop, AdaptiveStopsWithTheMedianInterval) {
  TimingOptions t;
  t.warmup_iterations = 0;
  t.warmup_ms = 0;
  t.iterations = 10;
  t.duration_s = 0;
  t.adaptive = true;
  t.adaptive_rel_ci = 0.5;  // wide: a constant-ish loop reaches it soon
  t.max_iterations = 100000;
  TimedLoopResult r = run_timed_loop(t, [] { std::this_thread::sleep_for(std::chrono::microseconds(200)); });
  ASSERT_TRUE(r.median_ci_ms);
  EXPECT_TRUE(r.stop_reason == "ci_reached" || r.stop_reason == "max_iterations") << r.stop_reason;
  EXPECT_LE(r.median_ci_ms->first, r.median_ci_ms->second);
}

TEST(Base64, KnownVectorsAndRoundTrip) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  EXPECT_EQ(base64_decode(base64_encode(bytes)), bytes);
}

TEST(RunnerWire, FeedsAndTensorsRoundTrip) {
  FeedSpec f;
  f.dims = {{"batch", 4}};
  f.shapes = {{"x", {4, 3}}};
  f.int_input_max = {{"ids", 30522}};
  f.files = {{"mask", "/abs/mask.pb"}};
  f.test_data_dir = "/abs/test_data_set_0";
  f.seed = 7;
  FeedSpec back = feed_from_json(feed_to_json(f));
  EXPECT_EQ(back.dims, f.dims);
  EXPECT_EQ(back.shapes, f.shapes);
  EXPECT_EQ(back.int_input_max, f.int_input_max);
  EXPECT_EQ(back.files, f.files);
  EXPECT_EQ(back.test_data_dir, f.test_data_dir);
  EXPECT_EQ(back.seed, 7u);
  TensorValue t;
  t.name = "y";
  t.data_type = 1;
  t.dims = {2};
  t.bytes = std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8);
  TensorValue u = tensor_from_json(tensor_to_json(t));
  EXPECT_EQ(u.name, "y");
  EXPECT_EQ(u.dims, t.dims);
  EXPECT_EQ(u.bytes, t.bytes);
}

// The generator is the ORT runner's (runners/ort/rng.mjs): same seed and name, same values (the integration test compares with the runner
// itself); here the invariants: range, determinism, independence of the seed per input name.
TEST(GeneratedInputs, DeterministicInRangePerName) {
  TensorValue a = generate_tensor("x", 1, {1000}, 0, std::nullopt);
  TensorValue b = generate_tensor("x", 1, {1000}, 0, std::nullopt);
  TensorValue c = generate_tensor("y", 1, {1000}, 0, std::nullopt);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_NE(a.bytes, c.bytes);
  for (int i = 0; i < 1000; ++i) {
    float v;
    std::memcpy(&v, a.bytes.data() + 4 * i, 4);
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
  }
  TensorValue ids = generate_tensor("ids", 7, {500}, 3, 17);
  for (int i = 0; i < 500; ++i) {
    int64_t v;
    std::memcpy(&v, ids.bytes.data() + 8 * i, 8);
    EXPECT_GE(v, 0);
    EXPECT_LT(v, 17);
  }
}
