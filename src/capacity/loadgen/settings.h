#pragma once
// What `rooflens capacity` is asked and what it runs, in the spirit of MLPerf LoadGen's TestSettings: the Requested
// settings (what the flags or a caller such as score gave; unset = the scenario's default), resolved once into the
// Resolved settings every run reads (resolve), which make each run's plan (plan_for); and the levers of a
// configuration. Defaults are sized for small machines (a 10 s minimum where MLPerf asks 600 s); `mlperf_durations`
// restores MLPerf's.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "capacity/loadgen/early_stopping.h"
#include "capacity/loadgen/engine.h"
#include "core/capacity.h"

namespace rooflens::capacity {

// MLPerf's min_duration for every scenario: also the longest run a peak search starts or lengthens.
inline constexpr double kMlperfDurationS = 600;

// The levers a deployer has; each accepts a list for --search (the grid is their product).
struct LeverLists {
  std::vector<int64_t> instances{1};
  std::vector<int64_t> threads{0};       // 0: the cores rooflens may use divided among the instances
  std::vector<int64_t> concurrency;      // empty: offline 2 (the next message waits in the runner), else 1
  std::vector<int64_t> batch{1};         // samples per query (-b)
  std::vector<int64_t> max_batch{1};     // dynamic batching (1: off)
  double batch_timeout_ms = 2;
  bool pin = false;
};

// What needs no default from the scenario: taken as given (by the flags, or by a caller such as score).
struct Choices {
  Scenario scenario = Scenario::server;
  double confidence = kMlperfConfidence;  // early stopping (no flag sets it)
  int64_t max_queries = 0;         // stop a run after this many queries (0: no cap)
  int64_t sample_count = 64;       // samples prepared in every instance (each a different seeded input)
  uint64_t seed = 0;               // schedule and samples
  bool find_peak = false;          // server: the highest VALID QPS
  double peak_precision = 0.02;    // find-peak stops when (upper - lower) / lower is at most this
  bool search = false;             // try the grid of LeverLists
  bool predict = true;             // the queueing simulation (needs a short single-stream baseline)
  bool mlperf_durations = false;
  bool oversubscribe = false;      // allow instances × threads above the cores rooflens may use
  double timeout_s = 60;           // a message unanswered this long: its instance is hung (killed, queries failed)
  bool profile_layers = false;     // server: a per-layer profile per instance under load
  bool self_test = false;
  // offline: an instance's queued calls travel several to a message, about offline_message_ms of service each
  // (from the warm-up's service times), answered once. 0: a message per call (the self-test: it measures the
  // per-query path a server run takes).
  double offline_message_ms = 20;
};

// What was asked. An unset figure takes the scenario's default when resolved; a set one is checked, whatever it is
// (--percentile 0 is refused, never read as "the default").
struct Requested : Choices {
  std::optional<double> qps;                 // server: Poisson arrival rate (--qps); find-peak's first guess
  std::optional<double> slo_ms;              // server: the latency bound (--slo)
  std::optional<double> percentile;          // default: single-stream 90, multi-stream and server 99
  std::optional<int64_t> samples_per_query;  // multi-stream (--samples-per-query; default 8, MLPerf's); others take -b
  std::optional<double> min_duration_s;      // default 10 s, 600 s with mlperf_durations; 0: the query count decides
  std::optional<int64_t> min_queries;        // default: the scenario's (see resolve)
  std::optional<double> search_budget_s;     // --search starts no configuration after this long (unset: no limit)
};

// What runs: every default filled and every figure checked, once (resolve); read-only after that.
struct Resolved : Choices {
  double qps = 0;                  // server: the arrival rate; 0 only with --find-peak or --search (none given)
  double slo_ms = 0;               // 0 only outside the server scenario (none given)
  double percentile = 99;
  int64_t samples_per_query = 0;   // multi-stream's; 0 in the other scenarios (they take the configuration's batch)
  double min_duration_s = 10;
  int64_t min_queries = 1;
  std::optional<double> search_budget_s;
  LeverLists levers;               // with the scenario's default concurrency
};

// Fills the scenario's defaults and checks every figure, throwing UsageError that names the flag (exit 2): --qps ≤ 0,
// --slo ≤ 0, --percentile outside (0, 100), a server run without --slo, levers below 1, -b above --max-batch,
// instances × threads above `cores` without --oversubscribe.
Resolved resolve(const Requested& asked, const LeverLists& levers, int64_t cores);

// The plan of one run of `scenario` on configuration `c`: the resolved settings' minimums, seed and samples, the
// drain an SLO needs, the Offline window that keeps every instance busy, and the calls an Offline message carries
// (from the warm-up: 1 elsewhere).
RunPlan plan_for(const Resolved& s, Scenario scenario, const CapacityConfig& c, int64_t offline_calls_per_message = 1);

// --percentile outside (0, 100) refused (UsageError), for single-pass and decoder runs alike.
void check_percentile(double percentile);

// --precision outside (0, 1) refused (UsageError): find-peak stops when (upper - lower) / lower is at most it.
void check_peak_precision(double precision);

// instances × threads above `cores` refused (UsageError) unless oversubscribe: they would share cores.
void check_cores(int64_t instances, int64_t threads, int64_t cores, bool oversubscribe);

// The threads of an instance when the user gave 0: the cores divided among the instances (at least 1).
int64_t threads_for(int64_t requested, int64_t instances, int64_t cores);

// Every configuration of the grid, in order (instances outermost, then threads, concurrency, batch, max batch).
std::vector<CapacityConfig> expand(const LeverLists& levers, int64_t cores);

// Samples per query of the scenario: multi-stream's samples_per_query, else the configuration's batch.
int64_t samples_per_query(const Resolved& s, const CapacityConfig& c);

CapacitySettingsEcho echo(const Resolved& s);

}  // namespace rooflens::capacity
