#include "generate/phase_layers.h"

#include <cmath>

#include "analysis/model_summary.h"
#include "core/stats.h"
#include "profile/layers.h"

namespace rooflens {

PhaseProfile phase_profile(Phase phase, const Model& step, const std::map<std::string, int64_t>& dims,
                           const PhaseMeasurement& m, const std::optional<Model>& optimized, const HardwareInfo* hw,
                           int64_t threads) {
  PhaseProfile p;
  p.phase = phase;
  p.tokens = m.tokens;
  p.past = m.past;
  p.dims = dims;
  p.latency_ms = summarize(m.profiled_latencies_ms);
  const Analysis a = analyze_model(step, CostRegistry::builtin());
  p.flops = a.totals.flops;
  p.macs = a.totals.macs;
  LayerBuild lb = build_layers(step, a, optimized, m.kernels, hw, threads);
  double sum = 0;
  for (const auto& l : lb.layers) sum += l.time_ms;
  // Kernel times against the step as the runtime's profiler timed it (the span they live in), as profile does.
  const double step_ms = m.profiled_runs_ms.empty() ? p.latency_ms.median : median_of(m.profiled_runs_ms);
  if (step_ms > 0) p.coverage = sum / step_ms;
  p.layers = std::move(lb.layers);
  p.unowned = std::move(lb.unowned);
  p.unmapped_kernels = lb.unmapped_kernels;
  p.warnings = std::move(lb.warnings);
  if (!p.layers.empty() && (p.coverage < 0.9 || p.coverage > 1.05))
    p.warnings.push_back(to_string(phase) + ": layer times cover " +
                         std::to_string(static_cast<int>(std::lround(p.coverage * 100))) +
                         "% of the profiled step (expected 90-105%)");
  return p;
}

}  // namespace rooflens
