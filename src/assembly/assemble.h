#pragma once
// The one way a measurement becomes a run of the report: every live backend and every importer ends here.
//
//   Measurement (core/measurement.h) + the user's model, its analysis at the run's dims, the roofs, the source's
//   mapping rules  ->  ProfileRun: timing statistics, layers mapped to the user's nodes with their costs and
//   roofline position, coverage, warnings.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/graph_view.h"
#include "core/measurement.h"
#include "core/report_hardware.h"
#include "core/report_model.h"
#include "core/report_run.h"
#include "mapping/rules.h"

namespace rooflens {

struct AssemblyContext {
  const GraphView* model = nullptr;       // the user's main graph; null: no model (an import without --model)
  const Analysis* analysis = nullptr;     // the user's model analysed at this run's dims (with `model`)
  const HardwareInfo* hw = nullptr;       // the roofs; null: layers are not placed on a roofline
  const MappingRules* rules = nullptr;    // the source's; null: plain_mapping_rules()
  uint64_t weights_bytes = 0;             // the model file's weights a node reads (0: counted from the analysis)
  // The analysis again with the tensors the runtime shaped where the analysis could not (tensor -> dims); nullopt
  // when none could be taken. Unset: such tensors are only counted (assembly/kernel_shapes.h).
  std::function<std::optional<Analysis>(const std::map<std::string, std::vector<int64_t>>&)> reanalyze;
};

// The run of `key` from its first (or only) measurement. key.threads is the thread count the run used; the
// roofline uses the roofs measured at (nearly) that count.
ProfileRun assemble_run(const RunKey& key, const Measurement& m, const AssemblyContext& ctx);

// The run's layers placed again against `after`, roofs raised since they were placed against `before`
// (hw/raise_roofs.h): the placement's warnings against `before` give way to those against `after`. `step_ms` is the
// Measurement::kernel_time_step_ms the run was assembled with.
void place_run_again(ProfileRun& run, const HardwareInfo* before, const HardwareInfo& after, double step_ms);

// A later timed measurement of the same configuration (--repeat: a fresh runner) joins the run: its samples follow
// the earlier ones, walls add up, the peak memory is the highest, statistics and timing warnings are redone.
void add_repetition(ProfileRun& run, const Measurement& m);

}  // namespace rooflens
