#pragma once
// The Report: the one data model that crosses between rooms. Loaders/analysis/backends/importers fill it,
// reporters read it. Its JSON form ("schema": "rooflens.report/1") is documented in docs/report-schema.md
// and round-trips losslessly (write -> read -> write gives the same bytes).
//
// The report's sections live in their own headers, so code that needs one section includes that one:
//   core/report_model.h       model: the file and its static analysis
//   core/report_hardware.h    hardware: the machine and its ceilings
//   core/report_layer.h       the layer: one row of a run's layer table
//   core/report_run.h         runs, failures and backends: measured configurations (samples, repetitions, layers)
//   core/report_whatif.h      whatif: projections of the runs
//   core/report_generation.h  generation: decoder runs per phase
//   core/report_serving.h     serving, serving_search: capacity on a decoder (generative serving)
// and capacity (core/capacity.h) and lint's findings (core/findings.h). This header composes them into `Report`.
#include <optional>
#include <string>
#include <vector>

#include "core/capacity.h"
#include "core/findings.h"
#include "core/report_generation.h"
#include "core/report_hardware.h"
#include "core/report_layer.h"
#include "core/report_model.h"
#include "core/report_run.h"
#include "core/report_serving.h"
#include "core/report_whatif.h"
#include "core/tool_info.h"

namespace rooflens {

// /2: several backends per report ("backends", runs[].backend, runs[].label); /1 reports are still read.
inline constexpr const char* kReportSchema = "rooflens.report/2";
inline constexpr const char* kReportSchemaV1 = "rooflens.report/1";

struct Report {
  std::string schema = kReportSchema;
  ToolInfo tool;
  ModelInfo model;
  std::optional<HardwareInfo> hardware;  // absent in JSON when not measured
  std::vector<BackendInfo> backends;     // profile reports only (with runs and failures); runs name theirs by
                                         // label when there are several
  bool is_profile() const { return !backends.empty(); }
  std::vector<ProfileRun> runs;
  std::vector<Failure> failures;
  std::vector<std::string> warnings;     // report-wide (cost-unknown ops, unstable timings, ...)
  bool partial = false;                  // interrupted: some configurations were not run
  // What rooflens lint concluded (src/lint/); absent = not linted (reports written before lint existed).
  std::optional<std::vector<Finding>> findings;
  std::optional<Projection> whatif;      // rooflens whatif's projection of these runs, when one was made
  std::optional<Generation> generation;  // `rooflens generate` reports only; their failures are in `failures`
  std::optional<CapacityResult> capacity;  // `rooflens capacity` reports only (core/capacity.h)
  std::optional<ServingResult> serving;    // `rooflens capacity` on a decoder only (core/report_serving.h)
  std::optional<ServingSearch> serving_search;  // ... with --find-peak or --sweep: every run (`serving` absent)
  std::optional<ServingRoofline> serving_roofline;  // ... its decode steps on the roofline (absent with --no-roofs)
};

std::string report_to_json(const Report& r, int indent = 2);
// Throws std::runtime_error with a one-line message on malformed input or a foreign schema.
Report report_from_json(const std::string& text);

}  // namespace rooflens
