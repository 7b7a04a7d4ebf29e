#pragma once
// The per-layer profile of one generation step (prefill or decode): the step's kernels mapped to the user's ONNX
// nodes, costed at the step's shapes and placed on the roofline. A thin adapter over the profile room's layer
// building (profile/layers.h: build_layers) until the measurement seam gives one public assembly function; it is
// the only place the generate room reaches into profile/.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/generation.h"
#include "core/report.h"
#include "model/graph.h"

namespace rooflens {

// `step` is the model loaded at the step's shapes; `optimized` the graph the runtime ran (absent: kernels are
// matched by name); `hw` may be null (no roofline).
PhaseProfile phase_profile(Phase phase, const Model& step, const std::map<std::string, int64_t>& dims,
                           const PhaseMeasurement& m, const std::optional<Model>& optimized, const HardwareInfo* hw,
                           int64_t threads);

}  // namespace rooflens
