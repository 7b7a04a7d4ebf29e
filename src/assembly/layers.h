#pragma once
// From a source's kernels to the report's layers: the user's nodes each kernel computes (mapping/kernel_ownership.h,
// with the source's rules), the owned nodes' costs summed (from the analysis), each layer placed on the roofline.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/graph_view.h"
#include "core/measurement.h"
#include "core/report_hardware.h"
#include "core/report_layer.h"
#include "core/report_model.h"
#include "mapping/rules.h"

namespace rooflens {

struct LayerBuild {
  std::vector<Layer> layers;       // execution order
  std::vector<NodeFate> unowned;
  int64_t unmapped_kernels = 0;
  std::vector<std::string> warnings;
};

struct LayerSources {
  const GraphView* original = nullptr;  // the user's main graph; null: no model (layers keep the source's costs)
  const Analysis* analysis = nullptr;   // its analysis at this run's dims (required with `original`)
  const GraphView* executed = nullptr;  // the graph the kernels are nodes of; null: kernels matched by name only
  const MappingRules* rules = nullptr;  // the source's; null: plain_mapping_rules()
  const HardwareInfo* hw = nullptr;     // null: no roofline
  const HardwareInfo* cpu = nullptr;    // the machine's native roofs when `hw` is an engine's (engine_hardware): each
                                        // layer's cpu_efficiency; null: none
  int64_t threads = 0;                  // picks the roofs measured at (nearly) this thread count
  double kernel_time_step_ms = 0;       // Measurement::kernel_time_step_ms (the roof check allows for it)
};

// A layer may reach at most this much above its roof before it is an attribution error: the roofs are each the best
// of many short repetitions, and a layer's median is measured in other conditions (warm caches from the layer
// before, another thread's prefetch); 10% covers what we saw among correctly attributed layers (docs/mapping.md).
inline constexpr double kRoofTolerance = 0.10;

LayerBuild build_layers(const std::vector<KernelRecord>& kernels, const LayerSources& in);

// The placement alone, as build_layers ends with it: each layer's share, rate, bound, roof, efficiency and
// attribution error against `hw` (null: no roofline) at `threads`, all redone, and with `cpu` (the machine's native
// roofs when `hw` is an engine's) its cpu_efficiency; returns the warnings it gives.
std::vector<std::string> place_layers(std::vector<Layer>& layers, const HardwareInfo* hw, int64_t threads,
                                      double step_ms, const HardwareInfo* cpu = nullptr);

}  // namespace rooflens
