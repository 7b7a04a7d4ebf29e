#include "backends/common/timed_loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace rooflens {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Inverse standard normal CDF by bisection on erfc: exact enough for a stop rule, and no table to get wrong.
double normal_quantile(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 100; ++i) {
    double mid = (lo + hi) / 2;
    if (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

double median_sorted(const std::vector<double>& s) {
  size_t n = s.size();
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

}  // namespace

std::optional<std::pair<double, double>> median_ci(std::vector<double> s, double confidence) {
  const double n = static_cast<double>(s.size());
  const double z = normal_quantile(0.5 + confidence / 2);
  const double j = std::floor((n - z * std::sqrt(n)) / 2);
  const double k = std::ceil(1 + (n + z * std::sqrt(n)) / 2);
  if (j < 1 || k > n) return std::nullopt;
  std::sort(s.begin(), s.end());
  return std::make_pair(s[static_cast<size_t>(j) - 1], s[static_cast<size_t>(k) - 1]);
}

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
      auto ci = median_ci(out.latencies_ms, t.adaptive_confidence);
      std::vector<double> sorted = out.latencies_ms;
      std::sort(sorted.begin(), sorted.end());
      const double m = median_sorted(sorted);
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
  if (t.adaptive) out.median_ci_ms = median_ci(out.latencies_ms, t.adaptive_confidence);
  return out;
}

}  // namespace rooflens
