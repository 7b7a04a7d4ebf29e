#pragma once
// The verdict on one scenario run (LoadGen's results.cc in spirit): latency figures from the records, MLPerf's
// early-stopping check, and VALID or INVALID with every reason and what to do about it. The rules are written out
// in docs/capacity.md ("Verdict rules").
#include <cstdint>

#include "capacity/loadgen/early_stopping.h"
#include "capacity/loadgen/engine.h"
#include "core/capacity.h"

namespace rooflens::capacity {

struct Judging {
  double slo_ms = 0;               // server
  double percentile = 99;
  double confidence = kMlperfConfidence;
  int64_t instances = 1;
  double lag_warning_share = 0.10; // issue lag p99 above this share of the SLO is said
};

// A query's latency in ms as its scenario counts it: server from its scheduled time, offline from its issue,
// single/multi-stream from its issue (= its scheduled time). An abandoned query counts what it waited.
double latency_ms(const QueryRecord& r, Scenario s, int64_t end_ns);

ScenarioResult judge(const RunPlan& plan, const RunRecords& records, const Judging& j);

}  // namespace rooflens::capacity
