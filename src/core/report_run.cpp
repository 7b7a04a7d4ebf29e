#include "core/report_run.h"

#include "core/repetitions.h"

namespace rooflens {

std::vector<double> ReferenceTiming::repetition_medians() const {
  return rooflens::repetition_medians(latencies_ms, repetitions);
}

std::vector<double> ProfileRun::repetition_medians() const {
  return rooflens::repetition_medians(latencies_ms, repetitions);
}

}  // namespace rooflens
