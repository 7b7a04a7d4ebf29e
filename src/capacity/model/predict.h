#pragma once
// The predicted capacity (core/capacity.h Prediction): the service model read from single-stream baseline runs,
// then the queueing simulation (simulate.h) of the configuration judged by the live verdict (loadgen/verdict.h) — the
// Server peak by the same peak search, the Offline throughput, and a latency-QPS curve.
#include <vector>

#include "capacity/loadgen/engine.h"
#include "capacity/loadgen/verdict.h"
#include "capacity/model/simulate.h"
#include "capacity/sut/dispatcher.h"
#include "core/capacity.h"

namespace rooflens::capacity {

// Service times per call batch (runtime call start to end), and the medians of what a call spends outside it.
ServiceModel service_model(const std::vector<RunRecords>& baselines);

struct PredictionPlan {
  RunPlan server;                 // the server runs' plan (qps set by the search)
  RunPlan offline;
  int32_t instances = 1;
  BatchingRules rules;
  Judging judging;
  double precision = 0.02;
  bool server_peak = true;        // predict the server peak (needs an SLO)
};

Prediction predict(const ServiceModel& model, const PredictionPlan& plan);

}  // namespace rooflens::capacity
