#pragma once
// From a backend's kernel timings to the report's layers: map kernels to the user's nodes (mapping/),
// sum the owned nodes' costs (analysis/), place each layer on the measured roofline.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/report.h"
#include "mapping/layer_map.h"
#include "model/graph.h"

namespace rooflens {

GraphView graph_view(const Model& model);  // the main graph

struct LayerBuild {
  std::vector<Layer> layers;       // execution order
  std::vector<NodeFate> unowned;
  int64_t unmapped_kernels = 0;
  std::vector<std::string> warnings;
};

// `analysis` must be the analysis of `original` at this run's dims. `optimized` is the graph the backend ran
// (absent when it could not be read: kernels are then matched by node name only). `hw` may be null.
LayerBuild build_layers(const Model& original, const Analysis& analysis, const std::optional<Model>& optimized,
                        const std::vector<KernelTiming>& kernels, const HardwareInfo* hw, int64_t threads);

}  // namespace rooflens
