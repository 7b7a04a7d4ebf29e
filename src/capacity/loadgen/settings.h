#pragma once
// What `rooflens capacity` is asked: flat settings in the spirit of MLPerf LoadGen's TestSettings (one struct the
// CLI binds to, resolved per scenario in one place: resolve()), and the levers of a configuration. Defaults are
// sized for small machines (a 10 s minimum where MLPerf asks 600 s); `mlperf_durations` restores MLPerf's.
#include <cstdint>
#include <string>
#include <vector>

#include "core/capacity.h"

namespace rooflens::capacity {

// MLPerf's min_duration for every scenario: also the longest run a peak search starts or lengthens.
inline constexpr double kMlperfDurationS = 600;

// The levers a deployer has; each accepts a list for --search (the grid is their product).
struct LeverLists {
  std::vector<int64_t> instances{1};
  std::vector<int64_t> threads{0};       // 0: the cores rooflens may use divided among the instances
  std::vector<int64_t> concurrency;      // empty: offline 2 (the next request waits in the runner), else 1
  std::vector<int64_t> batch{1};         // samples per query (-b)
  std::vector<int64_t> max_batch{1};     // dynamic batching (1: off)
  double batch_timeout_ms = 2;
  bool pin = false;
};

struct Settings {
  Scenario scenario = Scenario::server;
  double qps = 0;                  // server: Poisson arrival rate (--qps); find-peak's first guess when given
  double slo_ms = 0;               // server: the latency bound (--slo)
  double percentile = 0;           // 0: the scenario's (single-stream 90, multi-stream 99, server 99)
  double confidence = 0.99;        // early stopping (MLPerf's)
  int64_t samples_per_query = 0;   // multi-stream (--samples-per-query; 0: 8, MLPerf's); others take -b
  double min_duration_s = 0;       // 0: the default (10 s; 600 s with mlperf_durations)
  int64_t min_queries = 0;         // 0: the scenario's default (see resolve)
  int64_t max_queries = 0;         // 0: no cap
  int64_t sample_count = 64;       // samples prepared in every instance (each a different seeded input)
  uint64_t seed = 0;               // schedule and samples
  bool find_peak = false;          // server: the highest VALID QPS
  double peak_precision = 0.02;    // find-peak stops when (upper - lower) / lower is at most this
  bool search = false;             // try the grid of LeverLists
  double search_budget_s = 600;    // --search stops starting configurations after this
  bool predict = true;             // the queueing simulation (needs a short single-stream baseline)
  bool mlperf_durations = false;
  bool oversubscribe = false;      // allow instances × threads above the cores rooflens may use
  double timeout_s = 60;           // a request unanswered this long: its instance is hung (killed, queries failed)
  bool profile_layers = false;     // server: a per-layer profile per instance under load
  bool self_test = false;
  // offline: an instance's queued calls travel several to a request, about offline_request_ms of service each
  // (from the warm-up's service times), answered once. 0: a request per call (the self-test: it measures the
  // per-query path a server run takes).
  double offline_request_ms = 20;
};

// Fills the scenario's defaults and checks every flag, throwing UsageError that names the flag (exit 2):
// --qps ≤ 0, --slo ≤ 0, --percentile outside (0, 100), a server run without --slo, levers below 1, -b above
// --max-batch, instances × threads above `cores` without --oversubscribe.
void resolve(Settings& s, LeverLists& levers, int64_t cores);

// The threads of an instance when the user gave 0: the cores divided among the instances (at least 1).
int64_t threads_for(int64_t requested, int64_t instances, int64_t cores);

// Every configuration of the grid, in order (instances outermost, then threads, concurrency, batch, max batch).
std::vector<CapacityConfig> expand(const LeverLists& levers, int64_t cores);

// Samples per query of the scenario: multi-stream's samples_per_query, else the configuration's batch.
int64_t samples_per_query(const Settings& s, const CapacityConfig& c);

CapacitySettingsEcho echo(const Settings& s);

}  // namespace rooflens::capacity
