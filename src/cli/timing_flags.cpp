#include "cli/timing_flags.h"

namespace rooflens::cli {

void add_timing_flags(CLI::App& cmd, TimingOptions& t, const TimingFlagStyle& s) {
  const std::string& p = s.prefix;
  cmd.add_option("--warmup", t.warmup_iterations, p + "Warm-up runs (at least)")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd.add_option("--warmup-ms", t.warmup_ms, p + "Warm-up time in ms (at least)")
      ->check(CLI::Range(0.0, 3.6e6))
      ->capture_default_str();
  cmd.add_option("--iterations", t.iterations, p + "Measured runs, profiling off (at least)")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  cmd.add_option("--duration", t.duration_s, p + "Measured seconds (at least)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd.add_option("--max-iterations", t.max_iterations, p + "Measured runs at most, even before --duration")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  if (s.adaptive)
    cmd.add_flag("--adaptive", t.adaptive,
                 p + "Keep measuring until the median's 95% confidence interval is within ±1% (capped)");
  cmd.add_option("--profile-iterations", t.profile_iterations, p + "Profiled runs for layer times")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd.add_flag(s.no_layers + "{false}", t.layers, p + s.no_layers_help)->disable_flag_override();
}

}  // namespace rooflens::cli
