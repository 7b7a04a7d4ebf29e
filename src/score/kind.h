#pragma once
// A workload kind: how one kind of workload is built, given its reference outputs, validated and measured. The
// suite's workloads name their kind ("served", "decoder"); a new kind is one unit (a file implementing this) plus
// one line in kinds.cpp. A new workload of an existing kind is one entry in the suite file.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/report_hardware.h"
#include "core/report_model.h"
#include "core/score.h"
#include "score/suite.h"

namespace rooflens::score {

struct KindContext {
  Backend* backend = nullptr;             // the runtime measured, at its default settings
  Backend* reference_backend = nullptr;   // the same runtime with graph optimizations disabled (references)
  const HardwareInfo* roofs = nullptr;    // null: figures not decomposed
  int64_t cores = 1;                      // physical cores rooflens may use
  std::filesystem::path work_dir;         // models and runner files of this command
  const ModeSettings* mode = nullptr;
  bool quick = false;                     // the mode is quick (its figures take the quick constants)
  bool validate_only = false;             // `score --validate`: check the outputs, measure nothing
  const Tolerance* tolerance = nullptr;   // for the workload's precision
  const std::atomic<bool>* interrupted = nullptr;
  std::function<void(const std::string&)> progress;
  std::string test_hook;                  // the workload's fault to inject (tests only; "" normally)
};

// One figure's work as a projection needs it (`score --project`): the analysis of one pass of the model at the shapes
// the figure measures, and how many of the figure's units one pass yields (a prefill of P tokens yields P).
struct FigureWork {
  std::string metric;
  Analysis pass;
  double units_per_pass = 1;
};

class WorkloadKind {
 public:
  virtual ~WorkloadKind() = default;
  // Runs the model on the reference backend and stores its outputs (or greedy tokens) in `def`.
  virtual void write_reference(WorkloadDef& def, const std::filesystem::path& model, const KindContext& ctx) const = 0;
  // Validates against def's references, then measures mode->repetitions repetitions into `out` (status, figures
  // with raw repetitions and roofs); with ctx.validate_only only the status. Throws on faults (BackendError,
  // UserError): the driver records them.
  virtual void run(const WorkloadDef& def, const std::filesystem::path& model, const KindContext& ctx,
                   ScoreWorkload& out) const = 0;
  // The work of each figure the kind measures, from the model's static analysis (nothing runs).
  virtual std::vector<FigureWork> work(const WorkloadDef& def, const std::filesystem::path& model) const = 0;
};

// Throws UserError naming the kind when there is none of that name.
const WorkloadKind& kind_of(const std::string& name);

// The zoo model of a workload, built into `dir` (seeded weights; int8: the zoo's QDQ quantization, with 7-bit
// weights when def.reduce_range). fp16 is never built (the caller marks it unsupported first).
std::filesystem::path build_model(const WorkloadDef& def, const std::filesystem::path& dir);

}  // namespace rooflens::score
