#include "core/serving_items.h"

#include <fmt/format.h>

#include "core/stats.h"

namespace rooflens {
namespace {

// The figures a summary gives of a metric, for an item without samples: nearest-rank percentiles are values that
// were measured, so the p50 stands as the median.
LatencyStats serving_stats_of(const ServingDistribution& d) {
  LatencyStats s;
  s.n = d.n;
  s.mean = d.mean;
  s.median = d.p50;
  s.p90 = d.p90;
  s.p95 = d.p95;
  s.p99 = d.p99;
  s.max = d.max;
  return s;
}

ServingItem serving_item(const std::string& config, const std::vector<double>& samples, const ServingDistribution& d) {
  ServingItem i;
  i.config = config;
  i.samples_ms = samples;
  i.stats = samples.empty() ? serving_stats_of(d) : summarize(samples);
  return i;
}

}  // namespace

std::string serving_label(const ServingSettings& s) {
  std::string levers = s.batching;
  auto add = [&](const std::string& part) { levers += (levers.empty() ? "" : " ") + part; };
  if (s.max_batch > 0) add(fmt::format("max-batch={}", s.max_batch));
  if (s.instances > 1) add(fmt::format("instances={}", s.instances));
  if (s.threads > 0) add(fmt::format("threads={}", s.threads));
  std::string load = s.scenario;
  if (s.scenario == "server") {
    load += fmt::format(" qps={:g}", s.rate);
    if (s.burstiness != 1) load += fmt::format(" burstiness={:g}", s.burstiness);
  } else if (s.scenario == "concurrency") {
    load += fmt::format(" users={}", s.users);
  } else if (s.scenario == "offline") {
    load += fmt::format(" requests={}", s.requests);
  }
  return levers.empty() ? load : levers + " · " + load;
}

std::vector<const ServingResult*> serving_runs(const Report& r) {
  std::vector<const ServingResult*> out;
  if (r.serving) out.push_back(&*r.serving);
  if (r.serving_search)
    for (const auto& run : r.serving_search->runs) out.push_back(&run);
  return out;
}

std::vector<ServingItem> serving_items(const ServingResult& run) {
  std::vector<ServingItem> out;
  const std::string label = serving_label(run.settings);
  const ServingSummary& s = run.summary;
  if (s.ttft_ms.n > 0) out.push_back(serving_item(label + kTtftItem, run.samples.ttft_ms, s.ttft_ms));
  if (s.tpot_ms.n > 0) out.push_back(serving_item(label + kTpotItem, run.samples.tpot_ms, s.tpot_ms));
  if (s.output_tokens_per_s > 0) {
    const double ms = 1000 / s.output_tokens_per_s;
    out.push_back(serving_item(label + kOutputMsPerTokenItem, {ms}, {}));
  }
  return out;
}

}  // namespace rooflens
