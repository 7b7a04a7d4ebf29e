#pragma once
// One configuration measured end to end: its pool of instances started, warmed up, its single-stream baseline
// (the service times the prediction needs), the scenario (or, with --find-peak, every QPS of the peak search),
// the predicted capacity beside the measured one, the explanation against the roofs, and with --profile-layers one
// per-layer profile per instance under load. `rooflens capacity` calls it once, `--search` once per configuration.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "capacity/loadgen/engine.h"
#include "capacity/loadgen/settings.h"
#include "capacity/sut/served_model.h"
#include "core/capacity.h"
#include "core/report_hardware.h"
#include "core/report_run.h"

namespace rooflens::capacity {

struct CapacityContext {
  const Resolved* settings = nullptr;
  const ServedModel* served = nullptr;
  Backend* backend = nullptr;
  const HardwareInfo* roofs = nullptr;     // null: no explanation against roofs, layers not placed
  int64_t cores = 1;                       // physical cores rooflens may use
  std::filesystem::path work_dir;
  RecordSink* sink = nullptr;              // --queries
  std::function<void(const std::string& config)> on_config;  // a configuration starts (the sink's label)
  const std::atomic<bool>* interrupted = nullptr;
  std::function<void(const std::string& what)> progress;
  // --search --budget: no new server run of a peak search starts after this instant (none: no limit).
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

struct ConfigOutcome {
  CapacityRun run;
  std::vector<ProfileRun> layer_runs;      // --profile-layers: one per instance, under load
  bool stop = false;                       // a fault or Ctrl-C: nothing more should run
};

// The scenarios a configuration runs: the one asked for, or with --search Offline and (given --slo) the Server peak.
ConfigOutcome run_configuration(const CapacityConfig& config, const CapacityContext& ctx);

// The records' runtime calls of the last `seconds` before the run's end, per instance (the HTML timeline).
std::vector<TimelineEntry> timeline_of(const RunRecords& r, double seconds);

}  // namespace rooflens::capacity
