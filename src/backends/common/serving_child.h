#pragma once
// A serving instance (backends/serving.h) over a runner process that speaks the `prepare` and `infer` messages
// (docs/runner-protocol.md): the ONNX Runtime runner and the OpenCV runner alike. A backend starts its runner,
// loads the model its own way, and hands the runner over; messages and replies are the same for every runtime.
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/common/child_runner.h"
#include "backends/serving.h"

namespace rooflens {

using ServingProfiler = std::function<Measurement(ChildRunner& runner, int64_t skip)>;

class ChildServingInstance : public ServingInstance {
 public:
  ChildServingInstance(std::unique_ptr<ChildRunner> runner, double load_ms, std::vector<RunSetting> settings,
                       ServingProfiler profiler = {});
  pid_t pid() const override { return pid_; }
  double load_ms() const override { return load_ms_; }
  std::vector<RunSetting> settings() const override { return settings_; }
  bool send(uint64_t tag, const std::vector<CallSamples>& calls) override;
  int reply_fd() const override { return runner_->reply_fd(); }
  bool collect(std::vector<InferReply>& out) override;
  std::string death() const override { return death_; }
  void kill() override;
  Measurement profile(int64_t skip) override;

 private:
  std::unique_ptr<ChildRunner> runner_;
  pid_t pid_;
  double load_ms_;
  std::vector<RunSetting> settings_;
  ServingProfiler profiler_;
  std::unordered_map<long long, uint64_t> tags_;  // message id -> the caller's tag
  std::vector<RunnerReply> replies_;
  std::string death_;
};

// The `prepare` message: `feed` (the runner's own feed fields, merged in), `samples` to make, `batch_inputs` to
// stack. Throws BackendError (stage "run", the runner's error code) when the runner refuses it or dies.
void prepare_samples(ChildRunner& runner, nlohmann::json message, std::chrono::milliseconds timeout,
                     const std::string& subject);

}  // namespace rooflens
