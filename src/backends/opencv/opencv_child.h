#pragma once
// The parent's side of the OpenCV runner child: typed calls over the runner protocol, failures as BackendErrors
// that carry OpenCV's own message, and the measurement both the one-shot backend and the live runner make.
#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "backends/common/child_runner.h"

namespace rooflens::opencv {

// How OpenCV loads and runs the model (a cv::dnn::Net: OpenCV has no session object).
struct NetOptions {
  bool fusion = true;   // Net::enableFusion (OpenCV's default too); always sent
  bool fusion_given = false;  // the user set it (-B opencv:fusion=..., --opt-level)
  int threads = 0;      // cv::setNumThreads; the backend always passes a count (0 would leave OpenCV's own)
};

class Child {
 public:
  Child();                                    // starts rooflens-opencv-runner (throws UserError if it cannot)
  pid_t pid() const { return runner_.pid(); }
  bool running() const { return runner_.running(); }
  int loaded_threads() const { return loaded_threads_; }  // cv::getNumThreads() after the last load (0: none)
  std::string opencv_version() const;         // "4.6.0", from hello

  // Sends `message` (its "op" set); throws BackendError(stage, ...) naming `subject` unless the reply is ok.
  nlohmann::json call(nlohmann::json message, std::chrono::milliseconds timeout, const std::string& stage);
  ServedModel load(const std::filesystem::path& model, const std::map<std::string, int64_t>& dims,
                   const std::map<std::string, std::vector<int64_t>>& shapes, const NetOptions& o,
                   std::chrono::milliseconds timeout);
  // Timed run, then (timing.layers) the profiled iterations with OpenCV's per-layer times, as kernels mapped to
  // the user's nodes. Sets `stage` like the ORT runner's measurement does.
  Measurement measure(const FeedSpec& feed, const TimingOptions& timing, std::chrono::milliseconds timeout);

 private:
  ChildRunner runner_;
  std::filesystem::path model_;
  int loaded_threads_ = 0;
};

}  // namespace rooflens::opencv
