#pragma once
// The OpenCV DNN backend (`-B opencv`): OpenCV's own ONNX importer and CPU implementation (DNN_BACKEND_OPENCV,
// DNN_TARGET_CPU), run in a child process (rooflens-opencv-runner, built beside rooflens from runner/), with per-layer
// times from OpenCV's own timings (Net::getPerfProfile). Built when ROOFLENS_BACKEND_OPENCV is on.
//
// Options (-B opencv:key=value): fusion=true|false (Net::enableFusion; --opt-level disabled turns it off).
#include <memory>

#include "backends/backend.h"

namespace rooflens::opencv {

std::unique_ptr<Backend> make_backend(const BackendSpec& spec);

}  // namespace rooflens::opencv
