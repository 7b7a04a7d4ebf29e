#pragma once
// Closed sets a measurement's producer fills for each kernel and the report keeps per layer: what the kernel does
// and where it ran, in neutral terms (a backend or importer translates its own names; views and lint read these).
#include <nlohmann/json.hpp>

namespace rooflens {

// What a layer does, as its producer (backend or importer) classifies its own kernels: the views and lint rules
// read this instead of a runtime's kernel names.
enum class LayerKind {
  compute,                        // computes the user's nodes (or an unknown kernel)
  layout,                         // reorders a tensor's memory layout: NCHWc reorders, Transposes, reformats
  copy,                           // copies a tensor between devices / memory spaces (Memcpy)
};
NLOHMANN_JSON_SERIALIZE_ENUM(LayerKind, {{LayerKind::compute, "compute"}, {LayerKind::layout, "layout"},
                                         {LayerKind::copy, "copy"}})

// Where a layer's bytes come from (the roofline divides them by its time, so they must be what the kernel moved).
enum class BytesSource {
  analysis,                       // the boundary tensors of the user's nodes it computes (or carries), as analysed
  runtime_writes,                 // reads as analysed (the part of each tensor its nodes read), writes as the
                                  // runtime reported the kernel's outputs (shape and element type)
  runtime,                        // the tensors the kernel read and wrote, as the runtime reported their shapes
  view,                           // none: every node it computes is a view (Reshape, Squeeze, ...): no data moves
  source,                         // the figure an imported profile gave, with no model to analyse
};
NLOHMANN_JSON_SERIALIZE_ENUM(BytesSource, {{BytesSource::analysis, "analysis"},
                                           {BytesSource::runtime_writes, "runtime_writes"},
                                           {BytesSource::runtime, "runtime"},
                                           {BytesSource::view, "view"}, {BytesSource::source, "source"}})

// Where a layer ran, as the producer knows it from its provider / device names.
enum class Device { unknown, cpu, gpu, npu };
NLOHMANN_JSON_SERIALIZE_ENUM(Device, {{Device::unknown, ""}, {Device::cpu, "cpu"}, {Device::gpu, "gpu"},
                                      {Device::npu, "npu"}})

}  // namespace rooflens
