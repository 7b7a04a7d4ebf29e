#pragma once
// The measured loop of a runtime that lives in this process (a C++ runner program, e.g. rooflens-opencv-runner), with the
// same rules as the ONNX Runtime runner's (runners/ort/timed_loop.mjs): warm-up ≥ warmup_iterations runs and ≥ warmup_ms;
// measured ≥ iterations and ≥ duration_s, or, adaptive, until the median's distribution-free confidence interval
// is within ±adaptive_rel_ci; always capped by max_iterations / max_duration_s. Only `once` is inside the timer.
// One specification holds the two loops to the same rules: tests/fixtures/timed_loop_spec.json (scripted call
// durations on a fake clock in, stop reason, samples and interval out), run through both by
// tests/unit/test_timed_loop_spec.cpp and tests/runners/timed_loop_spec.test.mjs.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/timing.h"

namespace rooflens {

struct TimedLoopResult {
  std::vector<double> latencies_ms;  // one per measured run, in order
  double wall_s = 0;                 // first measured start to last measured end
  int warmup_iterations = 0;
  double warmup_ms = 0;
  std::string stop_reason;           // min_reached | ci_reached | max_iterations | max_duration
  std::optional<std::pair<double, double>> median_ci_ms;  // adaptive runs
};

// Now, in nanoseconds from any fixed origin, of a clock that never goes back: what the loop reads around each call.
// Integer nanoseconds, as the ORT runner's process.hrtime.bigint(), so both loops turn the same readings into the
// same milliseconds.
using TimedLoopClock = std::function<std::int64_t()>;

// Timed on std::chrono::steady_clock.
TimedLoopResult run_timed_loop(const TimingOptions& timing, const std::function<void()>& once);
// Timed on `now`: the specification's tests give a fake clock that only the calls advance.
TimedLoopResult run_timed_loop(const TimingOptions& timing, const std::function<void()>& once, const TimedLoopClock& now);

}  // namespace rooflens
