// The capacity section's derived figures: a configuration's label, its headline, and the items compare and the
// results database keep (core/capacity.h).
#include "core/capacity.h"

#include <fmt/format.h>

namespace rooflens {

std::string CapacityConfig::label() const {
  std::string s = fmt::format("instances={} threads={} concurrency={} batch={}", instances, threads, concurrency, batch);
  if (max_batch > 1) s += fmt::format(" max_batch={} timeout={:g}ms", max_batch, batch_timeout_ms);
  if (pin) s += " pinned";
  return s;
}

namespace {

const ScenarioResult* last_of(const CapacityRun& run, Scenario s) {
  for (auto it = run.points.rbegin(); it != run.points.rend(); ++it)
    if (it->scenario == s) return &*it;
  return nullptr;
}

// The highest VALID server point: the peak when one was searched, else the highest QPS run that passed.
const ScenarioResult* best_server(const CapacityRun& run) {
  const ScenarioResult* best = nullptr;
  for (const auto& p : run.points)
    if (p.scenario == Scenario::server && p.valid && (!best || p.target_qps > best->target_qps)) best = &p;
  return best;
}

}  // namespace

CapacityHeadline headline(const CapacityRun& run, Scenario scenario) {
  CapacityHeadline h;
  if (scenario == Scenario::server) {
    const ScenarioResult* best = best_server(run);
    h.name = run.peak ? "server peak" : "server";
    h.unit = "QPS";
    if (best) {
      h.value = best->target_qps;
      h.ms = 1000.0 / best->target_qps;
    }
  } else if (scenario == Scenario::offline) {
    h.name = "offline";
    h.unit = "samples/s";
    if (const ScenarioResult* p = last_of(run, scenario); p && p->samples_per_s > 0) {
      h.value = p->samples_per_s;
      h.ms = 1000.0 / p->samples_per_s;
    }
  } else {
    const ScenarioResult* p = last_of(run, scenario);
    h.name = to_string(scenario) + (p ? fmt::format(" p{:g}", p->early_stopping.percentile) : "");
    h.unit = "ms";
    if (p && p->early_stopping.passed) h.value = h.ms = p->early_stopping.estimate_ms;
  }
  return h;
}

std::vector<CapacityItem> capacity_items(const CapacityResult& c) {
  std::vector<CapacityItem> out;
  for (const auto& run : c.runs) {
    if (!run.failure.empty()) continue;
    const std::string label = run.config.label();
    for (const auto& p : run.points) {
      if (p.latencies_ms.empty()) continue;
      CapacityItem item;
      item.config = label + " · " + to_string(p.scenario) +
                    (p.scenario == Scenario::server ? fmt::format(" qps={:g}", p.target_qps) : "");
      if (p.scenario == Scenario::offline) {
        // Offline is judged by throughput alone: one value, ms per sample (1000 / samples_per_s). Latency from
        // issue says little when everything is queued at once.
        if (p.samples_per_s > 0) item.samples_ms.assign(1, 1000.0 / p.samples_per_s);
      } else {
        item.samples_ms = p.latencies_ms;
      }
      if (!item.samples_ms.empty()) out.push_back(std::move(item));
    }
    CapacityHeadline h = headline(run, c.settings.scenario);
    if (h.ms > 0) out.push_back({label + " · headline " + h.name, {h.ms}});
  }
  return out;
}

}  // namespace rooflens
