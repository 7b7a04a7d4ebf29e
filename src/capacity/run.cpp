#include "capacity/run.h"

#include <chrono>

#include <fmt/format.h>

namespace rooflens::capacity {
namespace {

double offline_of(const CapacityRun& r) {
  double best = 0;
  for (const auto& p : r.points)
    if (p.scenario == Scenario::offline && p.valid) best = std::max(best, p.samples_per_s);
  return best;
}

double peak_of(const CapacityRun& r) { return r.peak ? r.peak->qps : 0; }

}  // namespace

CapacityOutcome run_capacity(const std::vector<CapacityConfig>& configs, const CapacityContext& context) {
  CapacityOutcome out;
  const Resolved& s = *context.settings;
  const bool budgeted = s.search && s.search_budget_s.has_value();
  out.result.settings = echo(s);
  const auto start = std::chrono::steady_clock::now();
  CapacityContext ctx = context;  // a search's peak searches stop starting runs when its budget is spent
  if (budgeted)
    ctx.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                               std::chrono::duration<double>(*s.search_budget_s));
  for (const CapacityConfig& c : configs) {
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (out.result.partial || (budgeted && spent > *s.search_budget_s && !out.result.runs.empty())) {
      CapacityRun skipped;
      skipped.config = c;
      skipped.failure = out.result.partial ? "not run: the command stopped before it"
                                           : fmt::format("not run: the --budget of {:g} s was spent", *s.search_budget_s);
      out.result.runs.push_back(std::move(skipped));
      continue;
    }
    if (c.instances * c.threads > ctx.cores && !s.oversubscribe) {  // a search grid's corner; settings.cpp refuses
      CapacityRun skipped;                                            // a run whose every configuration is one
      skipped.config = c;
      skipped.failure = fmt::format("not run: {} threads would share the {} cores (--oversubscribe runs it)",
                                    c.instances * c.threads, ctx.cores);
      out.result.runs.push_back(std::move(skipped));
      continue;
    }
    ConfigOutcome o = run_configuration(c, ctx);
    out.result.runs.push_back(std::move(o.run));
    for (auto& l : o.layer_runs) out.layer_runs.push_back(std::move(l));
    if (o.stop) out.result.partial = true;
  }
  if (s.search) {
    double best_offline = 0, best_peak = 0;
    for (const auto& r : out.result.runs) {
      if (offline_of(r) > best_offline) {
        best_offline = offline_of(r);
        out.result.best_offline = r.config.label();
      }
      if (peak_of(r) > best_peak) {
        best_peak = peak_of(r);
        out.result.best_server = r.config.label();
      }
    }
  }
  return out;
}

}  // namespace rooflens::capacity
