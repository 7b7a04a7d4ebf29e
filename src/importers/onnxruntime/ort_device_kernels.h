#pragma once
// The GPU kernels of an ONNX Runtime profile written with the CUDA (or ROCm) provider's tracer on: one event per
// kernel the device ran, `"cat":"Kernel"`, its name the demangled kernel's, its `dur` the device's time (µs) and its
// args the launch (`stream`, `grid_x..z`, `block_x..z`, `op_name`). ORT writes each one right after the Node event
// of the node that launched it (it merges them by the launch's correlation id and stamps them with that node's
// start time + 1, 2, ... µs), so the file's order is the attribution: a kernel belongs to the last Node event before
// it. A Node event's own `dur` is then the host's time to launch its kernels, not their time on the device.
#include <cstdint>
#include <string>
#include <vector>

#include "backends/onnxruntime/ort_profile.h"

namespace rooflens::importers {

struct LaunchedKernels {
  int64_t device_us = 0;             // Σ of their device times
  std::vector<std::string> names;    // in launch order
};

struct DeviceKernels {
  // Per event of the profile (same index as OrtProfile::events): what its Node event launched (empty otherwise).
  std::vector<LaunchedKernels> by_event;
  int64_t count = 0, total_us = 0;             // every Kernel event of the file
  int64_t unattributed = 0, unattributed_us = 0;  // those before any Node event: no node to give them to
  bool any() const { return count > 0; }
};

DeviceKernels device_kernels(const ort::OrtProfile& p);

// "name ×N" for the distinct kernel names in order of first launch (the layer's `implementation`).
std::string kernel_summary(const std::vector<std::string>& names);

}  // namespace rooflens::importers
