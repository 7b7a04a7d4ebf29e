#include "backends/common/timed_loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "stats/order.h"

namespace rooflens {
namespace {

std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// double(ns) / 1e6, the division std::chrono's duration<double, milli> does and the ORT runner's nsToMs.
double ns_to_ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

}  // namespace

TimedLoopResult run_timed_loop(const TimingOptions& t, const std::function<void()>& once) {
  return run_timed_loop(t, once, steady_now_ns);
}

TimedLoopResult run_timed_loop(const TimingOptions& t, const std::function<void()>& once, const TimedLoopClock& now) {
  TimedLoopResult out;
  const double max_ms = t.max_duration_s * 1000;
  const int max_iterations = std::max(t.max_iterations, t.iterations);
  const std::int64_t w0 = now();
  while (out.warmup_iterations < t.warmup_iterations || ns_to_ms(now() - w0) < t.warmup_ms) {
    once();
    ++out.warmup_iterations;
    if (ns_to_ms(now() - w0) > max_ms) break;
  }
  out.warmup_ms = ns_to_ms(now() - w0);

  size_t next_check = static_cast<size_t>(std::max(t.iterations, 1));
  const std::int64_t m0 = now();
  for (;;) {
    const std::int64_t r0 = now();
    once();
    const std::int64_t r1 = now();
    out.latencies_ms.push_back(ns_to_ms(r1 - r0));
    const double elapsed = ns_to_ms(r1 - m0);
    const size_t n = out.latencies_ms.size();
    const bool min_met = n >= static_cast<size_t>(t.iterations) && elapsed >= t.duration_s * 1000;
    if (min_met && !t.adaptive) {
      out.stop_reason = "min_reached";
      break;
    }
    if (min_met && t.adaptive && n >= next_check) {
      auto ci = stats::median_ci(out.latencies_ms, t.adaptive_confidence);
      const double m = stats::median_of(out.latencies_ms);
      if (ci && ci->first >= m * (1 - t.adaptive_rel_ci) && ci->second <= m * (1 + t.adaptive_rel_ci)) {
        out.stop_reason = "ci_reached";
        break;
      }
      next_check = std::max(n + 1, static_cast<size_t>(std::ceil(static_cast<double>(n) * 1.05)));
    }
    if (n >= static_cast<size_t>(max_iterations)) {
      out.stop_reason = "max_iterations";
      break;
    }
    if (elapsed >= max_ms) {
      out.stop_reason = "max_duration";
      break;
    }
  }
  out.wall_s = static_cast<double>(now() - m0) / 1e9;
  if (t.adaptive) out.median_ci_ms = stats::median_ci(out.latencies_ms, t.adaptive_confidence);
  return out;
}

}  // namespace rooflens
