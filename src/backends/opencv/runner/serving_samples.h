#pragma once
// The OpenCV runner's prepared samples for serving (messages `prepare` and `infer`, docs/runner-protocol.md): input
// sets made once, each from the feed's seed + i, with the inputs that take the batch at one item each; a call names
// samples ([first, count] ranges, wrapping around) and gets them stacked along the batch (the loaded one).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "backends/backend.h"
#include "backends/common/feeds.h"

namespace rooflens::opencv {

class ServingSamples {
 public:
  // Throws MessageError (runner_loop.h): "input" when a tensor cannot be built, "bad_message" for n < 1.
  void prepare(const std::vector<InputDesc>& inputs, const FeedSpec& feed, const std::vector<std::string>& stacked,
               int64_t n, const std::function<cv::Mat(const TensorValue&)>& to_mat);
  // The inputs of one call over `ranges` ([[first, count], ...]); throws MessageError on a malformed list.
  std::vector<std::pair<std::string, cv::Mat>> call_inputs(const nlohmann::json& ranges) const;

 private:
  std::vector<std::string> names_;
  std::vector<bool> stacked_;
  std::vector<std::vector<cv::Mat>> samples_;  // per sample, one Mat per input
};

}  // namespace rooflens::opencv
