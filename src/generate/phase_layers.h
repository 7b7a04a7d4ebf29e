#pragma once
// The per-layer profile of one generation step (prefill or decode): the step's measurement goes through
// assemble_run (assembly/), as every measurement does — kernels mapped to the user's ONNX nodes with the backend's
// rules, costed at the step's shapes, placed on the roofline — and the phase keeps the layer part of the run.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "backends/generation.h"
#include "core/memory.h"
#include "core/report_hardware.h"
#include "core/report_layer.h"
#include "mapping/rules.h"
#include "model/graph.h"

namespace rooflens {

// `step` is the model loaded at the step's shapes; `hw` may be null (no roofline). `memory`, when given, receives
// the step's memory as its run predicts it (the executed graph's weights and packed copies, memory/run_memory.h).
PhaseProfile phase_profile(Phase phase, const Model& step, const std::map<std::string, int64_t>& dims,
                           const PhaseMeasurement& m, const MappingRules& rules, const HardwareInfo* hw,
                           int64_t batch, int64_t threads, std::optional<RunMemory>* memory = nullptr);

}  // namespace rooflens
