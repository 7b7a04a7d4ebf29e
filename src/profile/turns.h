#pragma once
// Two models measured in turns, so that whatever the machine does meanwhile (a neighbour's compile, a frequency
// step, a slow spell of the host) touches both alike: `compare A.onnx B.onnx` and `profile --reference`.
#include <functional>
#include <string>

#include "core/timing.h"
#include "profile/profile.h"

namespace rooflens {

// Steps both drivers until neither has a run left, ABBA: pair k runs `a` first when k is even, `b` first when
// odd, so neither side is always the one that follows the other (a warm cache, a hot CPU).
void take_turns(ProfileDriver& a, ProfileDriver& b);

// One turn on a live runner: one warm-up iteration (the runner sat idle while the other side ran), then exactly
// `iterations` timed ones, no profiled run. A pair of turns is then ~0.1 s apart for a 5 ms model, shorter than
// the spells in which a shared host runs fast or slow.
TimingOptions turn_timing(int iterations);

// `o` set to take `turns` turns of `turn_iterations` iterations each on a live runner after its first, fresh run
// (ProfileOptions::live_timing). The flags that set them: --turns and --turn-iterations.
void use_turns(ProfileOptions& o, int turns, int turn_iterations);

// Progress of two drivers stepped in turns, as one bar: each driver's hook counts toward twice its total.
class TurnProgress {
 public:
  explicit TurnProgress(std::function<void(const std::string&, size_t, size_t)> update) : update_(std::move(update)) {}
  ProfileHooks hooks(const std::string& side, const std::atomic<bool>* interrupted);
  void finish() {
    if (update_) update_("done", total_, total_);
  }

 private:
  std::function<void(const std::string&, size_t, size_t)> update_;
  size_t done_ = 0, total_ = 0;
};

}  // namespace rooflens
