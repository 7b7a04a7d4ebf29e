#pragma once
// The `capacity` section of a report (`rooflens capacity`): how much a machine serves a model, at what latency, with
// which configuration, and why. Written by src/capacity/, read by reporters, compare and the results database; its
// JSON form is documented in docs/report-schema.md ("Capacity reports") and round-trips byte for byte.
// Words (STYLE.md): an instance is one runner process with its own inference session; a query is one unit of work of
// one or more samples; a message is what the pool sends an instance's runner (one or more runtime calls, one reply);
// a scenario is MLPerf's single-stream / multi-stream / server / offline.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rooflens {

enum class Scenario { single_stream, multi_stream, server, offline };
std::string to_string(Scenario s);                       // "single-stream", "multi-stream", "server", "offline"
std::optional<Scenario> scenario_from_string(const std::string& s);

// Latency of the queries of one scenario run, in ms. Percentiles are nearest-rank (a measured value). A query still
// unanswered when the run gave up on it counts with the time it had waited (a lower bound), so no figure is too low.
struct QueryLatency {
  int64_t n = 0;
  double min = 0, mean = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, p999 = 0, max = 0;
};

// MLPerf's early-stopping criterion (capacity/loadgen/early_stopping.h) as applied to one run.
struct EarlyStoppingCheck {
  double percentile = 0;          // the percentile judged (99 = p99)
  double confidence = 0.99;
  int64_t queries = 0;            // n
  int64_t over_limit = 0;         // t: server, queries over the SLO; single/multi-stream, the highest latencies the
                                  // estimate may discard plus one (the estimate is the t-th highest)
  int64_t needed = 0;             // queries the bound asks for: server h(t) + t; single/multi-stream h(1) + 1
  bool passed = false;
  double estimate_ms = 0;         // single/multi-stream: the percentile estimate the bound licenses (0 otherwise)
};

// Issue lag: when the generator handed a query to the system minus when the schedule said (the generator's cost).
struct IssueLag {
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
};

// One instance during one scenario run.
struct InstanceUse {
  int64_t index = 0;
  int64_t pid = 0;
  std::string cpus;               // "0-1" when pinned, "" when it may run anywhere rooflens may
  int64_t calls = 0;              // runtime calls it made (a dynamic batch of several queries is one); JSON "requests"
  int64_t queries = 0;            // queries it answered
  int64_t failed = 0;
  double busy_share = 0;          // Σ its service times (runtime call start to end) / the run's wall time
};

// One scenario run: a scenario at one setting (a server QPS), judged VALID or INVALID as MLPerf's LoadGen judges.
struct ScenarioResult {
  Scenario scenario = Scenario::server;
  double target_qps = 0;          // server: the Poisson rate asked for (0 for the other scenarios)
  bool valid = false;
  std::vector<std::string> reasons;          // why INVALID (empty when VALID)
  std::vector<std::string> recommendations;  // what to do about each reason
  std::vector<std::string> warnings;         // true but not invalidating (the generator's lag against the SLO, ...)
  double duration_s = 0;          // first scheduled query to last completion
  int64_t queries = 0, samples = 0;   // issued
  int64_t completed = 0, failed = 0, abandoned = 0;  // abandoned: still unanswered when the run stopped waiting
  int64_t over_slo = 0;           // server: queries whose latency exceeds the SLO (abandoned ones included)
  double scheduled_qps = 0;       // (queries - 1) / (last scheduled - first scheduled)
  double completed_qps = 0;       // completed / (last completion - first scheduled)
  double samples_per_s = 0;       // completed samples / (last completion - first scheduled)
  QueryLatency latency_ms;        // server: from each query's scheduled time; offline: from when it was issued
  double percentile_ms = 0;       // the latency at the judged percentile (nearest-rank; 0 offline)
  EarlyStoppingCheck early_stopping;
  IssueLag issue_lag;
  std::vector<InstanceUse> instances;
  std::vector<double> latencies_ms;  // every answered query's latency, in completion order (compare, the histogram)
  int64_t calls_per_message = 1;  // runtime calls an instance got per message (offline carries several: one reply);
                                  // JSON "calls_per_request", the key's name from before "message"
};

// The configuration a capacity run served with: the levers a deployer has.
struct CapacityConfig {
  int64_t instances = 1;          // runner processes, one inference session each
  int64_t threads = 0;            // intra-op threads per instance (as passed to the runtime)
  int64_t concurrency = 1;        // messages in flight per instance
  int64_t batch = 1;              // samples per query
  int64_t max_batch = 1;          // dynamic batching: queued queries merged into runs of up to this many samples
  double batch_timeout_ms = 0;    // ...waiting at most this long for a fuller batch
  bool pin = false;               // each instance on its own CPUs
  std::string label() const;      // "instances=2 threads=1 concurrency=1 batch=1" (+ " max_batch=8 timeout=2ms", " pinned")
};

// A Server latency-QPS point of the queueing simulation.
struct PredictedPoint {
  double qps = 0, p50_ms = 0, p99_ms = 0;
  bool valid = false;
};

// The capacity predicted from the configuration's single-stream service times by a discrete-event simulation of
// the same schedule, instances, concurrency and batching (capacity/model/simulate.h), against what was measured.
struct Prediction {
  double service_ms = 0;          // median single-stream service time (runtime call) at the query's batch
  double overhead_ms = 0;         // median of what a message spends outside the runtime call (pipes, JSON)
  double peak_qps = 0;            // predicted highest VALID Server QPS (0 when not predicted)
  double offline_samples_per_s = 0;  // predicted Offline throughput
  double measured_peak_qps = 0;   // 0 when no find-peak ran
  double error = 0;               // predicted / measured - 1 (0 when nothing to compare)
  std::vector<PredictedPoint> curve;
};

// The peak search of `--find-peak`: every QPS tried is a point of the configuration (ScenarioResult).
struct PeakSearch {
  double qps = 0;                 // highest VALID QPS found (0: none)
  double lower = 0, upper = 0;    // the bracket at the end: lower VALID, upper INVALID
  double precision = 0.02;        // (upper - lower) / lower reached or aimed at
  bool converged = false;
};

// Why the measured capacity is what it is: the machine-wide rates at it against the roofs of the cores in use.
struct CapacityExplanation {
  double samples_per_s = 0;       // the capacity explained (server peak × batch, or offline throughput)
  uint64_t flops_per_sample = 0, bytes_per_sample = 0;  // from the analysis at batch 1
  double gflops = 0, gbps = 0;    // achieved machine-wide
  int64_t cores_in_use = 0;       // min(instances × threads, cores rooflens may use)
  double compute_roof_gflops = 0, dram_roof_gbps = 0;
  std::string compute_roof, dram_roof;  // their labels ("fp32_fma_avx512 x2", "DRAM read x2"); "" without roofs
  double compute_share = 0, dram_share = 0;  // achieved / roof
};

// A runtime call on an instance's timeline (the HTML chart): the last seconds of the headline run.
struct TimelineEntry {
  int64_t instance = 0;
  double start_ms = 0, end_ms = 0;  // runtime call, from the run's start
  int64_t batch = 1;
};

// Everything measured for one configuration.
struct CapacityRun {
  CapacityConfig config;
  std::string failure;            // the configuration could not be served (an instance would not start): why
  std::vector<ScenarioResult> points;  // every scenario run, in order (the single-stream baseline first when made)
  std::optional<PeakSearch> peak;
  std::optional<Prediction> prediction;
  std::optional<CapacityExplanation> explanation;
  std::vector<TimelineEntry> timeline;
  std::vector<std::string> warnings;
};

// The generator's own cost, measured by `rooflens capacity --self-test` on a one-Identity model.
struct SelfTest {
  double engine_qps = 0;          // the issuing engine alone against a null system (answers at once), offline
  double max_qps = 0;             // offline queries per second through the whole path (generator, pipes, runner)
  double issue_lag_p99_ms = 0;    // at `lag_at_qps` (half of max_qps) on a Poisson schedule
  double lag_at_qps = 0;
  double latency_p50_ms = 0, latency_p99_ms = 0;  // added latency at lag_at_qps (the model itself does nothing)
};

// What the command was asked, resolved per scenario (capacity/loadgen/settings.h holds the flags themselves).
struct CapacitySettingsEcho {
  Scenario scenario = Scenario::server;
  double qps = 0, slo_ms = 0, percentile = 0, confidence = 0.99;
  int64_t samples_per_query = 1;
  double min_duration_s = 0;
  int64_t min_queries = 0;
  int64_t sample_count = 0;       // samples prepared per instance
  uint64_t seed = 0;
  bool find_peak = false, search = false, mlperf_durations = false;
};

struct CapacityResult {
  CapacitySettingsEcho settings;
  std::vector<CapacityRun> runs;  // one per configuration (--search: the grid, in order)
  std::string best_offline, best_server;  // --search: the labels of the best configurations ("" when none)
  std::optional<SelfTest> self_test;
  std::vector<std::string> warnings;
  bool partial = false;           // interrupted (Ctrl-C) or stopped by a fault before every run finished
};

// The headline of one configuration: the figure the scenario is judged by, as a number whose lower is better, so
// the results database and `compare` treat it like every other timing (server peak: ms per query at the peak;
// offline: ms per sample; single/multi-stream: the early-stopping percentile estimate). 0 when nothing to say.
struct CapacityHeadline {
  std::string name;               // "server peak", "offline", "single-stream p90"
  double value = 0;               // in its own unit: QPS, samples/s or ms
  std::string unit;               // "QPS", "samples/s", "ms"
  double ms = 0;                  // the lower-is-better form above
};
CapacityHeadline headline(const CapacityRun& run, Scenario scenario);

// The items `compare` and the results database keep of a capacity result, named after the configuration:
// "<label> · server qps=40" (each query's latency), "<label> · offline" (one value: ms per sample), and
// "<label> · headline <name>" (one value: the headline's ms form).
struct CapacityItem {
  std::string config;
  std::vector<double> samples_ms;
};
std::vector<CapacityItem> capacity_items(const CapacityResult& c);

}  // namespace rooflens
