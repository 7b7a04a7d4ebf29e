#pragma once
// What `rooflens import` prints after the profile summary: the figures another tool's files carry beyond a live
// run's — layer totals (Σ mean, Σ median), the engine's memory, e2e phases, the share of nodes and time per
// execution provider (as ORT's perf tool reports "ratio of ops / execution time" per EP), CPU-fallback nodes,
// layers the runtime inserted, precisions. Reads the report only.
#include <string>

#include "core/report.h"

namespace rooflens {

struct LayerDeviceShare {
  std::string provider;
  int64_t layers = 0;
  double layer_share = 0, time_ms = 0, time_share = 0;
};

// Per provider (device name as the run recorded it), in descending time order.
std::vector<LayerDeviceShare> layer_device_shares(const ProfileRun& run);

std::string import_summary(const Report& r);

}  // namespace rooflens
