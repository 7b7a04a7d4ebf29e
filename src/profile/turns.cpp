#include "profile/turns.h"

#include <algorithm>

namespace rooflens {

void take_turns(ProfileDriver& a, ProfileDriver& b) {
  for (size_t k = 0;; ++k) {
    ProfileDriver& first = k % 2 == 0 ? a : b;
    ProfileDriver& second = k % 2 == 0 ? b : a;
    bool ran_first = first.step();
    bool ran_second = second.step();
    if (!ran_first && !ran_second) break;
  }
}

TimingOptions turn_timing(int iterations) {
  TimingOptions turn;
  turn.warmup_iterations = 1;
  turn.warmup_ms = 0;
  turn.iterations = iterations;
  turn.duration_s = 0;
  turn.layers = false;
  return turn;
}

void use_turns(ProfileOptions& o, int turns, int turn_iterations) {
  o.repeat = 1 + turns;
  o.live_timing = turn_timing(turn_iterations);
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
