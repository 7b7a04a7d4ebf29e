#pragma once
// A layer (docs/architecture.md glossary): one row of a run's layer table — a kernel the runtime executed (or a group
// of kernels), mapped to the user's nodes it computes, with its work, bytes and roofline place. Profile runs
// (core/report_run.h) and generation phases (core/report_generation.h) hold them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/layer_kind.h"

namespace rooflens {

// Bytes a kernel moved at one level of the memory hierarchy ("DRAM", "L2", "L1": core/level_names.h), as a source
// whose hardware counters count traffic per level saw them (a GPU profiler): a hierarchical roofline places the
// kernel once per level, against that level's own ceiling.
struct LevelBytes {
  std::string level;
  uint64_t bytes = 0;
};

// A layer's point at one memory level: its work over the bytes it moved there, held to that level's ceiling by the
// same placement and physics check as the layer itself (assembly/layers.cpp).
struct LevelPoint {
  std::string level;              // "DRAM", "L2", "L1"
  uint64_t bytes = 0;
  double intensity = 0, gbps = 0; // the layer's placed FLOPs / bytes; bytes / time_ms
  std::string bound, roof;        // as the layer's, against this level's memory ceiling ("" without one)
  double efficiency = 0;
  std::string attribution_error;  // above this level's roof beyond the tolerance: not drawn, said why
};

struct Layer {                    // one kernel of the optimized graph the backend ran
  std::string name, op, provider; // optimized-graph node name and op ("FusedConv", "Conv" in nchwc, ...)
  std::vector<std::string> onnx_nodes;  // the user's nodes this layer computes (owned), or aliases (see alias)
  bool alias = false;             // a layout/copy kernel (NCHWc reorder, inserted Transpose): onnx_nodes it
                                  // serves are owned by another layer; its flops are 0
  double time_ms = 0;             // median over profiled iterations of the kernel's per-iteration time
  double share = 0;               // time_ms / sum of all layers' time_ms
  uint64_t flops = 0, macs = 0, bytes = 0;  // of the owned nodes; bytes = boundary tensors only
  uint64_t bytes_written = 0;     // of bytes, those the kernel wrote (0: not known; written only when known)
  bool cost_known = true;         // false when an owned node's cost is unknown (flops are then a lower bound)
  double intensity = 0, gflops = 0, gbps = 0;
  std::string bound;              // "compute" | "memory" | "" (no roofs)
  double efficiency = 0;          // achieved / attainable at this intensity (0 without roofs)
  std::string roof;               // the ceiling used: "fp32_fma_avx512 x2" or "L2 read x2"
  // When `roof` is an engine's (WebAssembly, ProfileRun::roofs_engine): the layer against the machine's native roofs,
  // the ceiling the CPU has ("60% of what WebAssembly allows, 9% of what the CPU allows"). Absent otherwise.
  std::optional<double> cpu_efficiency;
  std::string cpu_roof;
  std::vector<std::vector<int64_t>> input_shapes, output_shapes;  // as the backend reported them
  double start_ms = 0;            // offset of the kernel in the first measured profiled iteration (timeline)
  // Added with lint (written only when known, so older reports round-trip unchanged):
  LayerKind kind = LayerKind::compute;
  Device device = Device::unknown;
  std::vector<std::string> input_dtypes, output_dtypes;  // ONNX dtype names ("float", "float16", "uint8", ...)
  // Added with import (written only when known): what another tool's profile says about the kernel.
  std::optional<double> mean_ms;  // mean over the source's iterations, when it gives one (time_ms is the median,
                                  // or this mean when the source gives no median)
  std::string precision;          // element type it computed in, as an ONNX name ("int8", "float16", "float")
  std::string implementation;     // the kernel the runtime chose (TensorRT tactic, OpenVINO primitive type)
  std::string inserted_for;       // the runtime added it itself: why ("reformat", "quantize", ...)
  bool fallback = false;          // ran on the CPU although the inference session ran on an accelerator
  uint64_t weight_bytes = 0;      // its weights and biases as the runtime stores them (0: not known)
  // Added with the mapping-truth work (written only when not the default):
  BytesSource bytes_source = BytesSource::analysis;  // where `bytes` comes from
  uint64_t padding_macs = 0;      // of macs: taps in the zero padding, which no kernel need execute; the roofline
                                  // places the layer by flops - 2 x padding_macs (gflops is that work's rate)
  std::string attribution_error;  // the layer's rate exceeds its roof beyond the tolerance: physically impossible,
                                  // so its flops, bytes or ceiling are wrong; why (it is then not drawn on the roof)
  std::vector<LevelPoint> levels; // a hierarchical roofline's points, when the source counted bytes per level
                                  // (written only then)

  // The work the roofline places it by: its FLOPs without the MACs on zero padding (gflops and efficiency are of
  // this work; views that project a layer's time scale it).
  uint64_t placed_flops() const { return padding_macs > flops / 2 ? 0 : flops - 2 * padding_macs; }
};

struct NodeFate {                 // user nodes that no layer owns
  std::string name, fate;         // fate: "folded" (constant-folded at inference session creation) | "eliminated"
};

}  // namespace rooflens
