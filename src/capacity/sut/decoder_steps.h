#pragma once
// The generative scheduler's step executor over a backend's served decoder (backends/generation.h): each step runs in
// the runtime's process, and its times come back on the monotonic clock both processes read, so a token is ready when
// its step ended there, not when the reply crossed the pipe.
#include "backends/generation.h"
#include "capacity/generative/batcher.h"

namespace rooflens::capacity {

class ServedDecoderExecutor final : public generative::StepExecutor {
 public:
  explicit ServedDecoderExecutor(ServedDecoder& decoder) : decoder_(decoder) {}
  // A step the runtime refused, or whose process died or hung, comes back as the result's error, naming the step.
  generative::StepResult run(const DecoderStep& step) override;
  void idle_until(int64_t ns) override;
  const Clock& clock() const override { return clock_; }

 private:
  ServedDecoder& decoder_;
  MonotonicClock clock_;
};

}  // namespace rooflens::capacity
