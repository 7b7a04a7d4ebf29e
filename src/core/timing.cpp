#include "core/timing.h"

#include <algorithm>

namespace rooflens {

TimingOptions TimingOptions::bench() {
  TimingOptions t;
  t.warmup_ms = 100;
  t.duration_s = 1;
  t.max_iterations = 2000;
  t.profile_iterations = 5;
  return t;
}

nlohmann::ordered_json timing_to_json(const TimingOptions& t) {
  return {{"warmup_iterations", t.warmup_iterations},
          {"warmup_ms", t.warmup_ms},
          {"iterations", t.iterations},
          {"duration_s", t.duration_s},
          {"max_iterations", std::max(t.max_iterations, t.iterations)},  // asking for more runs raises the cap
          {"max_duration_s", t.max_duration_s},
          {"adaptive", t.adaptive},
          {"adaptive_rel_ci", t.adaptive_rel_ci},
          {"adaptive_confidence", t.adaptive_confidence},
          {"profile_iterations", t.profile_iterations}};
}

}  // namespace rooflens
