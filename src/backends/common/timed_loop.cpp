#include "backends/common/timed_loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "stats/order.h"

namespace rooflens {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

}  // namespace

TimedLoopResult run_timed_loop(const TimingOptions& t, const std::function<void()>& once) {
  TimedLoopResult out;
  const double max_ms = t.max_duration_s * 1000;
  const int max_iterations = std::max(t.max_iterations, t.iterations);
  const auto w0 = Clock::now();
  while (out.warmup_iterations < t.warmup_iterations || ms_since(w0) < t.warmup_ms) {
    once();
    ++out.warmup_iterations;
    if (ms_since(w0) > max_ms) break;
  }
  out.warmup_ms = ms_since(w0);

  size_t next_check = static_cast<size_t>(std::max(t.iterations, 1));
  const auto m0 = Clock::now();
  for (;;) {
    const auto r0 = Clock::now();
    once();
    const auto r1 = Clock::now();
    out.latencies_ms.push_back(std::chrono::duration<double, std::milli>(r1 - r0).count());
    const double elapsed = std::chrono::duration<double, std::milli>(r1 - m0).count();
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
  out.wall_s = std::chrono::duration<double>(Clock::now() - m0).count();
  if (t.adaptive) out.median_ci_ms = stats::median_ci(out.latencies_ms, t.adaptive_confidence);
  return out;
}

}  // namespace rooflens
