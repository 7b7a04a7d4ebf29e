#pragma once
// OpenCV's serving capability (backends/serving.h): one rooflens-opencv-runner per instance, the model imported at
// the calls' batch (OpenCV's importer fixes input shapes when it loads, so every call has that batch: no dynamic
// batching), its samples prepared by the runner (runner/serving_samples.h). forward() runs on the runner's thread,
// one call at a time, like ONNX Runtime's runner: parallel service comes from instances.
#include <memory>

#include "backends/common/cpu_budget.h"
#include "backends/opencv/opencv_child.h"
#include "backends/serving.h"

namespace rooflens::opencv {

std::unique_ptr<Serving> make_opencv_serving(NetOptions options, CpuBudget budget);

// What a net loaded with `o` runs with (threads as passed, fusion, device), as runs record it.
std::vector<RunSetting> opencv_settings(const NetOptions& o, const RunSetting& threads);

}  // namespace rooflens::opencv
