#pragma once
// The predicted capacity: a discrete-event simulation of a configuration serving a scenario, from its measured
// single-stream service times. The live run's engine (engine.h: one issue loop, the same Poisson schedule) issues to a
// system under test on virtual time, which sends through the same dispatcher rules (sut/dispatcher.h) to `instances`
// simulated runners, each serving one call at a time:
//   a message sent at t reaches its runner at t + send; the runner starts its calls when free, one after another
//   (Offline's messages carry the plan's calls_per_message, every other scenario's one); each call takes a service
//   time drawn (seeded) from the samples measured at its batch (linear between the batches measured); the reply is
//   back `reply` after the last call's end, when its slots free and all its queries complete.
// The records it yields are judged by the same verdict as a live run (verdict.h). What it cannot know: how much
// instances slow each other down (shared caches, memory bandwidth, frequency) — the measured-vs-predicted error says.
#include <cstdint>
#include <map>
#include <vector>

#include "capacity/loadgen/engine.h"
#include "capacity/sut/dispatcher.h"

namespace rooflens::capacity {

struct ServiceModel {
  std::map<int64_t, std::vector<double>> service_ms;  // per batch measured: the runtime call's durations
  double send_ms = 0;    // message written -> call started, on an idle runner (median)
  double reply_ms = 0;   // call ended -> answer read (median)
  // A service time for a call of `batch` samples (u uniform in [0, 1) picks the sample).
  double draw(int64_t batch, double u) const;
  double median_ms(int64_t batch) const;
};

// The records of `plan` as the simulated system would serve it (calls per message: the plan's, over `rules`').
RunRecords simulate(const RunPlan& plan, int32_t instances, const BatchingRules& rules, const ServiceModel& model);

}  // namespace rooflens::capacity
