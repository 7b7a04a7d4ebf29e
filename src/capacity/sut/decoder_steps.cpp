#include "capacity/sut/decoder_steps.h"

#include <cerrno>
#include <time.h>

#include "core/errors.h"

namespace rooflens::capacity {

generative::StepResult ServedDecoderExecutor::run(const DecoderStep& step) {
  generative::StepResult r;
  try {
    const DecoderStepTimes t = decoder_.step(step);
    r.start_ns = t.start_ns;
    r.end_ns = t.end_ns;
    r.kv_copy_bytes = t.kv_copy_bytes;
  } catch (const BackendError& e) {
    r.start_ns = r.end_ns = clock_.now_ns();
    r.error = one_line(e.what());
  }
  return r;
}

void ServedDecoderExecutor::idle_until(int64_t ns) {
  const timespec until{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr) == EINTR) {  // a signal: sleep on
  }
}

}  // namespace rooflens::capacity
