#pragma once
// Projected scores (`rooflens score --project DEVICE`, docs/score.md "Side by side"): the suite's figures projected
// from the workloads' analyses onto a roof set — a datasheet device or this machine's measured roofs — and scored
// against the suite's reference figures. Always a ScoreResult of kind "projected", never a measurement.
//
// The model, per figure (one unit: a sample, a prompt's prefill, a token):
//   T(roofs)   = Σ over the model's nodes of max(flops / compute roof of its dtype, bytes / memory roof of the level
//                its bytes fit in) — each node alone on the roofline (analysis/roofline.h picks the roofs, as whatif)
//   roof ratio = T(reference roofs) / T(target)
//   efficiency = learned for the target's CPU class from stored measured scores (score_projection_efficiency.h),
//                else 1 (the reference's, assumed) — each figure says which
//   time       = reference time / (roof ratio × efficiency),   score = 1000 × roof ratio × efficiency
// T is the roof time a measured score decomposes with too (score/roof_bound.h): a measured figure's efficiency and
// a projected one mean one thing, which is what lets a projection learn from measurements. Projecting onto this
// machine's own measured roofs and holding the result against its measured score gives the projection's
// calibration error.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/report_hardware.h"
#include "core/report_model.h"
#include "core/score.h"

namespace rooflens {

// One node's work in one pass of the model (the analysis' counts), in the roof dtype it computes in.
struct ProjectedWork {
  double flops = 0, bytes = 0;
  std::string dtype = "fp32";      // a roof dtype ("fp32", "int8", ...); one the roofs lack falls back to fp32
};

struct ProjectionFigure {
  std::string metric, category, unit;   // as ScoreFigure ("latency", "fp32 latency", "ms")
  std::vector<ProjectedWork> nodes;     // one pass of the model
  double units_per_pass = 1;            // units of the figure one pass yields (batch; tokens of a prefill)
  double reference_time_ms = 0;         // the suite's constant, ms per unit
  int64_t threads = 1;                  // cores the figure uses (roofs at the nearest measured thread count)
};

// A suite workload as the projection needs it: the minimal interface the score suite fills (one entry per workload,
// its figures from the model's analysis at the shapes the suite measures).
struct ProjectionWorkload {
  std::string id, model, precision, shape;
  std::vector<ProjectionFigure> figures;
  std::string not_projected;       // why this workload cannot be projected ("" = it can): it is then failed with
                                   // this reason, its figures (metric and category only) count as members
  bool unsupported = false;        // with not_projected: the suite marks it unsupported on this runtime (fp16), as a
                                   // measured score does — reported, not a member of its categories
};

struct ProjectionTarget {
  HardwareInfo roofs;              // the target's ceilings
  std::string device;              // "NVIDIA A100 SXM4 80GB" / "this machine (Intel(R) Xeon(R), measured roofs)"
  std::string roofs_source;        // "datasheet" | "measured" | "cached" (ScoreMachine::roofs)
};

// --project DEVICE names this machine: "this" or "measured".
bool projects_this_machine(const std::string& device);

// The target of --project DEVICE: a datasheet device's roofs (hw --device lists them; UserError listing them for a
// device the table lacks), or this machine's, which `this_machine_roofs` gives (called only then: cached or
// measured now, as the caller obtains roofs; UserError when it gives none).
ProjectionTarget projection_target(const std::string& device,
                                   const std::function<std::optional<HardwareInfo>()>& this_machine_roofs);

struct ProjectionSetup {
  std::string suite = "v1";
  bool quick = false;
  std::vector<std::string> categories;  // in suite order
  HardwareInfo reference_roofs;         // the reference configuration's roofs (the suite's)
  ScoreMachine machine;                 // who projects (this machine, rooflens, the runtime the suite names)
  std::string created_at;               // ISO 8601 UTC
  std::vector<std::string> warnings;    // the suite's, carried into the result (provisional constants)
};

// The nodes of one analysed pass as work: nodes that run, with their flops and bytes (read + written).
// `precision` "int8": matrix-class nodes (Conv, MatMul, Gemm and their quantized forms) compute in int8, as the
// runtime runs a QDQ model's; everything else in the dtype of its first input.
std::vector<ProjectedWork> projected_work(const Analysis& pass, const std::string& precision);

class EfficiencyTable;

// Projects every figure (efficiency from `efficiency`, or 1 assumed when null); a figure whose roofs give no time
// (no compute or memory roof for its work) is left out with a warning and its workload marked failed (the overall
// then incomplete). Throws UserError when no figure at all can be projected.
ScoreResult project_score(const std::vector<ProjectionWorkload>& workloads, const ProjectionSetup& setup,
                          const ProjectionTarget& target, const EfficiencyTable* efficiency = nullptr);

// Σ max(flops / compute, bytes / memory) over `nodes` on `roofs` at `threads`, in ms per pass; -1 when a node has
// work but the roofs give no ceiling for it.
double roofline_time_ms(const std::vector<ProjectedWork>& nodes, const HardwareInfo& roofs, int64_t threads);

// The roof of one figure on `roofs`: per unit (a pass yields `units_per_pass`), its flops and bytes, the time above
// (time_ms 0 when the roofs give no ceiling for some of its work), bound by compute or memory by where most of that
// time goes, and the first compute and memory ceilings met. What a measured figure decomposes with (score/).
RoofBound roofline_bound(const std::vector<ProjectedWork>& nodes, double units_per_pass, const HardwareInfo& roofs,
                         int64_t threads);

// Calibration: a projected score of this machine against its measured score (same suite and mode), per category and
// overall: projected / measured - 1 (+0.25: the projection says 25% more than was measured). Only the categories
// both sides scored are compared, and the overall row is the geometric mean over those on each side (named
// "overall (N of M categories)" when some are left out), so a projection that includes int8 is never held against a
// measurement that does not. Throws UserError when the two are not of one suite and mode, or not projected vs
// measured. The rows: CalibrationRow (core/score.h), which the reporters show.
std::vector<CalibrationRow> calibration_error(const ScoreResult& projected, const ScoreResult& measured);

}  // namespace rooflens
