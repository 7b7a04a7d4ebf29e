#pragma once
// What the parent and the child of a C++ runner program (a runtime's own executable next to rooflens, e.g.
// rooflens-opencv-runner) send each other besides the protocol's envelope: the feed of a message, tensors, and the
// command that starts the child.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "backends/common/child_runner.h"
#include "core/tensor_value.h"

namespace rooflens {

nlohmann::json feed_to_json(const FeedSpec& f);
FeedSpec feed_from_json(const nlohmann::json& j);  // throws nlohmann::json::exception on a malformed feed

nlohmann::json tensor_to_json(const TensorValue& t);  // {name, data_type, dims, data_b64}
TensorValue tensor_from_json(const nlohmann::json& j);

// A runner program built beside rooflens (`program`, e.g. "rooflens-opencv-runner"), as a child runner named
// `name` in messages ("OpenCV runner"). It is looked for in $ROOFLENS_RUNNER_BIN_DIR, then next to the rooflens
// binary ($ROOFLENS_BINARY when set — tests run from other executables — else this process's own executable).
// A runtime gets its own program so rooflens never loads it: libraries that start threads when they are loaded
// (OpenCV's OpenBLAS) would otherwise catch Ctrl-C before rooflens can.
RunnerConfig sibling_runner(const std::string& program, const std::string& name);

}  // namespace rooflens
