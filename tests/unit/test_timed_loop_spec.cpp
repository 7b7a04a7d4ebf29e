// The in-binary runners' timed loop (backends/common/timed_loop) and the median interval it stops on (stats/order.h)
// against the timed loop's specification, tests/fixtures/timed_loop_spec.json, which
// tests/runners/timed_loop_spec.test.mjs holds the ORT runner's loop to: scripted call durations on a fake clock in,
// stop reason, samples and interval out, compared with == (the spec's values are the doubles both loops compute).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/common/timed_loop.h"
#include "stats/order.h"

using namespace rooflens;

namespace {

nlohmann::json timed_loop_spec() {
  std::ifstream in(std::string(ROOFLENS_FIXTURES_DIR) + "/timed_loop_spec.json");
  return nlohmann::json::parse(in);
}

// [1, {"ms": 2, "times": 3}] → {1, 2, 2, 2}
std::vector<double> spec_ms_list(const nlohmann::json& entries) {
  std::vector<double> out;
  for (const auto& e : entries) {
    if (e.is_number()) out.push_back(e.get<double>());
    else out.insert(out.end(), e.at("times").get<size_t>(), e.at("ms").get<double>());
  }
  return out;
}

// The spec's fake clock: nanoseconds that only the calls move on, each by the next scripted duration (cyclically).
struct SpecScriptedCalls {
  std::vector<std::int64_t> durations_ns;
  std::int64_t now_ns = 0;
  size_t calls = 0;

  explicit SpecScriptedCalls(const nlohmann::json& calls_ms) {
    for (double ms : spec_ms_list(calls_ms)) durations_ns.push_back(std::llround(ms * 1e6));
  }
  void call() { now_ns += durations_ns[calls++ % durations_ns.size()]; }
};

// The case's timing over the spec's defaults, field by field as the runner protocol names them.
TimingOptions spec_timing(const nlohmann::json& spec, const nlohmann::json& overrides) {
  nlohmann::json j = spec.at("timing_defaults");
  j.merge_patch(overrides);
  TimingOptions t;
  t.warmup_iterations = j.at("warmup_iterations").get<int>();
  t.warmup_ms = j.at("warmup_ms").get<double>();
  t.iterations = j.at("iterations").get<int>();
  t.duration_s = j.at("duration_s").get<double>();
  t.max_iterations = j.at("max_iterations").get<int>();
  t.max_duration_s = j.at("max_duration_s").get<double>();
  t.adaptive = j.at("adaptive").get<bool>();
  t.adaptive_rel_ci = j.at("adaptive_rel_ci").get<double>();
  t.adaptive_confidence = j.at("adaptive_confidence").get<double>();
  return t;
}

std::vector<double> spec_samples(const nlohmann::json& s) {
  if (s.is_array()) return s.get<std::vector<double>>();
  std::vector<double> out;
  for (int v = s.at("count_down_from").get<int>(); v >= 1; --v) out.push_back(v);
  return out;
}

}  // namespace

TEST(TimedLoopSpec, EveryLoopCase) {
  const nlohmann::json spec = timed_loop_spec();
  ASSERT_FALSE(spec.at("loops").empty());
  for (const auto& c : spec.at("loops")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    SpecScriptedCalls script(c.at("calls_ms"));
    const TimedLoopResult r = run_timed_loop(spec_timing(spec, c.at("timing")), [&] { script.call(); },
                                             [&] { return script.now_ns; });
    const nlohmann::json& e = c.at("expect");
    EXPECT_EQ(r.stop_reason, e.at("stop_reason").get<std::string>());
    EXPECT_EQ(r.warmup_iterations, e.at("warmup_iterations").get<int>());
    EXPECT_EQ(r.warmup_ms, e.at("warmup_ms").get<double>());
    EXPECT_EQ(r.latencies_ms, spec_ms_list(e.at("latencies_ms")));
    EXPECT_EQ(r.wall_s, e.at("wall_s").get<double>());
    if (e.at("median_ci_ms").is_null()) {
      EXPECT_FALSE(r.median_ci_ms);
    } else {
      ASSERT_TRUE(r.median_ci_ms);
      EXPECT_EQ(r.median_ci_ms->first, e.at("median_ci_ms")[0].get<double>());
      EXPECT_EQ(r.median_ci_ms->second, e.at("median_ci_ms")[1].get<double>());
    }
    EXPECT_EQ(script.calls, static_cast<size_t>(r.warmup_iterations) + r.latencies_ms.size());
  }
}

TEST(TimedLoopSpec, EveryMedianIntervalCase) {
  const nlohmann::json spec = timed_loop_spec();
  ASSERT_FALSE(spec.at("median_ci").at("cases").empty());
  for (const auto& c : spec.at("median_ci").at("cases")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    const std::vector<double> samples = spec_samples(c.at("samples"));
    const auto ci = stats::median_ci(samples, c.at("confidence").get<double>());
    const nlohmann::json& e = c.at("expect");
    if (e.is_null()) {
      EXPECT_FALSE(ci);
      continue;
    }
    ASSERT_TRUE(ci);
    EXPECT_EQ(stats::median_of(samples), e.at("median").get<double>());
    EXPECT_EQ(ci->first, e.at("low").get<double>());
    EXPECT_EQ(ci->second, e.at("high").get<double>());
  }
}
