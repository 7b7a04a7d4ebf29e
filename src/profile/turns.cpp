#include "profile/turns.h"

#include <algorithm>

namespace rooflens {

void take_turns(ProfileSession& a, ProfileSession& b) {
  for (size_t k = 0;; ++k) {
    ProfileSession& first = k % 2 == 0 ? a : b;
    ProfileSession& second = k % 2 == 0 ? b : a;
    bool ran_first = first.step();
    bool ran_second = second.step();
    if (!ran_first && !ran_second) break;
  }
}

TimingOptions chunk_timing(int iterations) {
  TimingOptions chunk;
  chunk.warmup_iterations = 1;
  chunk.warmup_ms = 0;
  chunk.iterations = iterations;
  chunk.duration_s = 0;
  chunk.layers = false;
  return chunk;
}

void use_chunks(ProfileOptions& o, int chunks, int chunk_iterations) {
  o.repeat = 1 + chunks;
  o.live_timing = chunk_timing(chunk_iterations);
}

ProfileHooks TurnProgress::hooks(const std::string& side, const std::atomic<bool>* interrupted) {
  ProfileHooks h;
  h.interrupted = interrupted;
  h.progress = [this, side](const std::string& what, size_t, size_t all) {
    total_ = std::max(total_, 2 * all);
    if (what != "done" && update_) update_(side + " " + what, done_++, total_);
  };
  return h;
}

}  // namespace rooflens
