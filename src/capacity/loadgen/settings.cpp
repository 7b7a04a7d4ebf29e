#include "capacity/loadgen/settings.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "capacity/loadgen/early_stopping.h"
#include "core/errors.h"

namespace rooflens::capacity {
namespace {

constexpr double kDefaultDurationS = 10;     // a small machine's minute holds several runs of this
constexpr int64_t kMlperfOfflineSamples = 24576;
constexpr int64_t kLoadgenMinQueries = 100;  // LoadGen's TestSettings default min_query_count

void positive_list(const std::vector<int64_t>& v, const char* flag) {
  if (v.empty()) throw UsageError(std::string(flag) + " needs at least one value");
  for (int64_t x : v)
    if (x < 1) throw UsageError(fmt::format("{} {}: give a whole number of at least 1", flag, x));
}

void check_given(const Requested& s) {
  if (s.percentile) check_percentile(*s.percentile);
  if (s.qps && !(*s.qps > 0))
    throw UsageError(fmt::format("--qps {:g}: give the server's Poisson arrival rate, more than 0 queries per second",
                                 *s.qps));
  if (!s.qps && s.scenario == Scenario::server && !s.find_peak && !s.search)
    throw UsageError("--qps: the server scenario needs an arrival rate, e.g. --qps 20 (or --find-peak to search for "
                     "the highest VALID rate)");
  if (s.slo_ms && !(*s.slo_ms > 0))
    throw UsageError(fmt::format("--slo {:g}ms: give a latency bound above 0, e.g. --slo 15ms", *s.slo_ms));
  if (!s.slo_ms && s.scenario == Scenario::server)
    throw UsageError("--slo: the server scenario needs a latency bound, e.g. --slo 15ms");
  // No flag sets the confidence (MLPerf's 0.99 unless a caller such as score asks otherwise): a bad one is a bug.
  if (!(s.confidence > 0 && s.confidence < 1))
    throw std::invalid_argument(fmt::format("capacity settings: early stopping's confidence {:g} is outside (0, 1)",
                                            s.confidence));
  if (s.samples_per_query && *s.samples_per_query < 1)
    throw UsageError("--samples-per-query: give a count of at least 1");
  if (s.samples_per_query && s.scenario != Scenario::multi_stream)
    throw UsageError("--samples-per-query sets multi-stream queries; the other scenarios take -b");
  if (s.min_duration_s && !(*s.min_duration_s >= 0)) throw UsageError("--duration: give seconds of at least 0");
  if (s.min_queries && *s.min_queries < 1) throw UsageError("--min-queries: give a count of at least 1");
  if (s.max_queries < 0) throw UsageError("--max-queries: give a count of at least 0 (0: no cap)");
  if (s.search_budget_s && !(*s.search_budget_s >= 0)) throw UsageError("--budget: give a duration of at least 0");
  if (s.sample_count < 1) throw UsageError("--samples: prepare at least one sample per instance");
  check_peak_precision(s.peak_precision);
  if (!(s.timeout_s > 0)) throw UsageError("--timeout: give seconds above 0");
  if (s.find_peak && s.scenario != Scenario::server)
    throw UsageError("--find-peak searches the server scenario's QPS: use it with --scenario server");
  if (s.profile_layers && s.scenario != Scenario::server)
    throw UsageError("--profile-layers profiles each instance under a server load: use it with --scenario server");
}

void check_levers(const Choices& s, const LeverLists& l, int64_t cores) {
  positive_list(l.instances, "--instances");
  positive_list(l.concurrency, "--concurrency");
  positive_list(l.batch, "-b");
  positive_list(l.max_batch, "--max-batch");
  for (int64_t t : l.threads)
    if (t < 0) throw UsageError(fmt::format("--threads {}: give a whole number of at least 1", t));
  if (!(l.batch_timeout_ms >= 0)) throw UsageError("--batch-timeout: give a duration of at least 0, e.g. 2ms");
  const bool lists = l.instances.size() * l.threads.size() * l.concurrency.size() * l.batch.size() *
                         l.max_batch.size() > 1;
  if (lists && !s.search)
    throw UsageError("--instances/--threads/--concurrency/-b/--max-batch take lists with --search only; give one "
                     "value each, or add --search");
  const int64_t max_b = *std::max_element(l.max_batch.begin(), l.max_batch.end());
  for (int64_t b : l.batch)
    if (max_b > 1 && b > max_b)
      throw UsageError(fmt::format("-b {}: a query cannot hold more samples than --max-batch {}", b, max_b));
  // A search grid may reach past the cores (--instances 1,2 --threads 1,2 on 2 cores): those corners are listed as
  // not run. A single configuration, or a grid with nothing that fits, is refused.
  const std::vector<CapacityConfig> grid = expand(l, cores);
  const bool some_fit = std::any_of(grid.begin(), grid.end(),
                                    [&](const CapacityConfig& c) { return c.instances * c.threads <= cores; });
  for (const CapacityConfig& c : grid)
    if (!(s.search && some_fit)) check_cores(c.instances, c.threads, cores, s.oversubscribe);
  if (l.pin)
    for (const CapacityConfig& c : expand(l, cores))
      if (c.instances * c.threads > cores)
        throw UsageError(fmt::format("--pin: {} instances × {} threads need {} cores; rooflens may use {}",
                                     c.instances, c.threads, c.instances * c.threads, cores));
}

int64_t default_min_queries(const Resolved& s) {
  const double p = s.percentile / 100;
  // The fewest queries with which the percentile can pass early stopping with one query over its limit.
  const int64_t one_over = min_under_limit(1, p, s.confidence) + 1;
  switch (s.scenario) {
    case Scenario::single_stream: return std::max(kLoadgenMinQueries, one_over);
    case Scenario::multi_stream: return one_over;  // 662 at p99: MLPerf's multi-stream min_query_count
    case Scenario::server: return s.mlperf_durations ? kLoadgenMinQueries : one_over;
    case Scenario::offline: return kLoadgenMinQueries;
  }
  return kLoadgenMinQueries;
}

}  // namespace

void check_percentile(double percentile) {
  if (!(percentile > 0 && percentile < 100))
    throw UsageError(fmt::format("--percentile {:g}: give a percentile between 0 and 100 (exclusive), e.g. 99",
                                 percentile));
}

void check_peak_precision(double precision) {
  if (!(precision > 0 && precision < 1)) throw UsageError("--precision: give a fraction like 2% or 0.02");
}

void check_cores(int64_t instances, int64_t threads, int64_t cores, bool oversubscribe) {
  if (instances * threads > cores && !oversubscribe)
    throw UsageError(fmt::format("--instances {} × --threads {} = {} threads on {} cores rooflens may use: they would "
                                 "share cores (each kernel then waits for a descheduled thread); fewer instances "
                                 "or threads, or --oversubscribe to measure that on purpose",
                                 instances, threads, instances * threads, cores));
}

int64_t threads_for(int64_t requested, int64_t instances, int64_t cores) {
  if (requested > 0) return requested;
  return std::max<int64_t>(1, cores / std::max<int64_t>(1, instances));
}

std::vector<CapacityConfig> expand(const LeverLists& l, int64_t cores) {
  std::vector<CapacityConfig> out;
  for (int64_t i : l.instances)
    for (int64_t t : l.threads)
      for (int64_t c : l.concurrency)
        for (int64_t b : l.batch)
          for (int64_t mb : l.max_batch) {
            CapacityConfig cfg;
            cfg.instances = i;
            cfg.threads = threads_for(t, i, cores);
            cfg.concurrency = c;
            cfg.batch = b;
            cfg.max_batch = mb;
            cfg.batch_timeout_ms = mb > 1 ? l.batch_timeout_ms : 0;
            cfg.pin = l.pin;
            if (mb > 1 && b > mb) continue;  // a query larger than the batches it would be merged into
            if (std::find_if(out.begin(), out.end(), [&](const CapacityConfig& o) { return o.label() == cfg.label(); }) ==
                out.end())
              out.push_back(cfg);
          }
  return out;
}

Resolved resolve(const Requested& asked, const LeverLists& levers, int64_t cores) {
  check_given(asked);
  Resolved s;
  static_cast<Choices&>(s) = asked;
  s.qps = asked.qps.value_or(0);
  s.slo_ms = asked.slo_ms.value_or(0);
  s.percentile = asked.percentile.value_or(asked.scenario == Scenario::single_stream ? 90 : 99);
  s.samples_per_query = asked.scenario == Scenario::multi_stream ? asked.samples_per_query.value_or(8) : 0;
  s.search_budget_s = asked.search_budget_s;
  s.levers = levers;
  if (s.levers.concurrency.empty()) s.levers.concurrency = {s.scenario == Scenario::offline && !s.search ? 2 : 1};
  check_levers(s, s.levers, cores);
  s.min_duration_s = asked.min_duration_s.value_or(s.mlperf_durations ? kMlperfDurationS : kDefaultDurationS);
  if (asked.min_queries) {
    s.min_queries = *asked.min_queries;
  } else if (s.mlperf_durations && s.scenario == Scenario::offline) {
    const int64_t per_query = *std::min_element(s.levers.batch.begin(), s.levers.batch.end());
    s.min_queries = (kMlperfOfflineSamples + per_query - 1) / per_query;
  } else {
    s.min_queries = default_min_queries(s);
  }
  if (s.max_queries > 0 && s.max_queries < s.min_queries)
    throw UsageError(fmt::format("--max-queries {} is below the minimum of {} queries", s.max_queries, s.min_queries));
  return s;
}

RunPlan plan_for(const Resolved& s, Scenario scenario, const CapacityConfig& c, int64_t offline_calls_per_message) {
  RunPlan p;
  p.scenario = scenario;
  p.qps = scenario == Scenario::server ? s.qps : 0;
  p.samples_per_query = samples_per_query(s, c);
  p.sample_count = s.sample_count;
  p.min_duration_s = s.min_duration_s;
  p.min_queries = s.min_queries;
  p.max_queries = s.max_queries;
  p.seed = s.seed;
  // Abandoned queries must be over the SLO for certain: they waited at least this long after the last arrival.
  p.drain_s = std::max({2.0, 10 * s.slo_ms / 1000, 2 * s.slo_ms / 1000 + 1});
  if (scenario == Scenario::offline) p.calls_per_message = offline_calls_per_message;
  p.offline_window = c.instances * c.concurrency * std::max<int64_t>(1, c.max_batch / p.samples_per_query) *
                     p.calls_per_message * 2;
  return p;
}

int64_t samples_per_query(const Resolved& s, const CapacityConfig& c) {
  return s.scenario == Scenario::multi_stream ? s.samples_per_query : c.batch;
}

CapacitySettingsEcho echo(const Resolved& s) {
  CapacitySettingsEcho e;
  e.scenario = s.scenario;
  e.qps = s.qps;
  e.slo_ms = s.slo_ms;
  e.percentile = s.percentile;
  e.confidence = s.confidence;
  e.samples_per_query = s.scenario == Scenario::multi_stream ? s.samples_per_query : 0;
  e.min_duration_s = s.min_duration_s;
  e.min_queries = s.min_queries;
  e.sample_count = s.sample_count;
  e.seed = s.seed;
  e.find_peak = s.find_peak;
  e.search = s.search;
  e.mlperf_durations = s.mlperf_durations;
  return e;
}

}  // namespace rooflens::capacity
