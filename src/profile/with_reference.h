#pragma once
// `rooflens profile MODEL --reference REF.onnx`: the model and a fixed reference model measured in turns in one
// session — one fresh run each (the model's with its profiled run for layers), then `turns` turns of
// `turn_iterations` iterations each on two live runners, ABBA. The report is the model's, its run carrying the
// reference's timing pair by pair (ProfileRun::reference). A CI gate judges the ratio of the two (history
// --check), which stays put when the machine's speed steps between sessions, as a time in ms does not.
#include <string>
#include <vector>

#include "profile/profile.h"

namespace rooflens {

struct ReferenceOptions {
  std::string model;       // REF.onnx ("" = no reference)
  int turns = 100;         // turns per side after the first run (--turns)
  int turn_iterations = 10;  // measured iterations per turn (--turn-iterations)
};

// As run_profile, with the reference. The reference runs on the same backend and threads, at its own shapes (a
// dynamic batch: 1). Throws UsageError when the grid is not one configuration of one backend (the pairs pair
// one run with the reference). A failed reference leaves the run without `reference` and says why in its
// warnings.
Report run_profile_with_reference(ProfileOptions o, const ReferenceOptions& ref, const std::vector<Backend*>& backends,
                                  const HardwareInfo* hw, const ProfileHooks& hooks);

}  // namespace rooflens
