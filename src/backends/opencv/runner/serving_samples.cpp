#include "backends/opencv/runner/serving_samples.h"

#include <algorithm>
#include <cstring>

#include "backends/common/runner_loop.h"
#include "core/errors.h"

namespace rooflens::opencv {

void ServingSamples::prepare(const std::vector<InputDesc>& inputs, const FeedSpec& feed,
                             const std::vector<std::string>& stacked, int64_t n,
                             const std::function<cv::Mat(const TensorValue&)>& to_mat) {
  if (n < 1) throw MessageError("bad_message", "prepare: 'samples' must be at least 1");
  std::vector<InputDesc> one = inputs;
  names_.clear();
  stacked_.assign(one.size(), false);
  for (size_t i = 0; i < one.size(); ++i) {
    names_.push_back(one[i].name);
    if (std::find(stacked.begin(), stacked.end(), one[i].name) != stacked.end() && !one[i].dims.empty()) {
      one[i].dims[0] = 1;
      stacked_[i] = true;
    }
  }
  samples_.clear();
  for (int64_t k = 0; k < n; ++k) {
    FeedSpec f = feed;
    f.seed = feed.seed + static_cast<uint64_t>(k);
    std::vector<TensorValue> tensors;
    try {
      tensors = build_feeds(one, f);
    } catch (const UserError& e) {
      throw MessageError("input", e.what());
    }
    std::vector<cv::Mat> mats;
    for (const auto& t : tensors) mats.push_back(to_mat(t));
    samples_.push_back(std::move(mats));
  }
}

std::vector<std::pair<std::string, cv::Mat>> ServingSamples::call_inputs(const nlohmann::json& ranges) const {
  if (samples_.empty()) throw MessageError("not_ready", "'infer' needs prepared samples: send 'prepare' first");
  std::vector<size_t> order;
  if (!ranges.is_array() || ranges.empty()) throw MessageError("bad_message", "'s' must be a list of [first, count]");
  for (const auto& r : ranges) {
    if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() || !r[1].is_number_integer() ||
        r[0].get<int64_t>() < 0 || r[1].get<int64_t>() < 1)
      throw MessageError("bad_message", "'s' must hold [first, count] pairs of non-negative integers (count >= 1)");
    for (int64_t k = 0; k < r[1].get<int64_t>(); ++k)
      order.push_back(static_cast<size_t>((r[0].get<int64_t>() + k) % static_cast<int64_t>(samples_.size())));
  }
  const std::vector<cv::Mat>& first = samples_[order.front()];
  std::vector<std::pair<std::string, cv::Mat>> out;
  for (size_t i = 0; i < names_.size(); ++i) {
    if (order.size() == 1 || !stacked_[i]) {
      out.emplace_back(names_[i], first[i]);
      continue;
    }
    const cv::Mat& one = first[i];
    std::vector<int> dims(one.size.p, one.size.p + one.dims);
    dims[0] = static_cast<int>(order.size());
    cv::Mat batch(static_cast<int>(dims.size()), dims.data(), one.type());
    const size_t bytes = one.total() * one.elemSize();
    for (size_t k = 0; k < order.size(); ++k) std::memcpy(batch.data + k * bytes, samples_[order[k]][i].data, bytes);
    out.emplace_back(names_[i], batch);
  }
  return out;
}

}  // namespace rooflens::opencv
