#pragma once
// A report of several backends (`profile -B onnxruntime -B opencv`) compared with itself: every further backend's
// runs against the first backend's, configuration by configuration, layers matched by the ONNX nodes they compute
// — what the HTML report shows as "Runtimes side by side".
#include <vector>

#include "core/comparison.h"
#include "core/report.h"

namespace rooflens {

// One Comparison per backend after the first (BASE: the first backend, NEW: that one); empty for fewer than two.
std::vector<Comparison> compare_backends(const Report& r, const CompareOptions& options = {});

}  // namespace rooflens
