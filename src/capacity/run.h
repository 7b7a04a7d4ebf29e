#pragma once
// Every configuration of a capacity command in turn (one, or --search's grid within its time budget), and what the
// grid concludes: the best configuration for Offline throughput and for the Server peak at the SLO.
#include <vector>

#include "capacity/run_configuration.h"
#include "core/capacity.h"

namespace rooflens::capacity {

struct CapacityOutcome {
  CapacityResult result;
  std::vector<ProfileRun> layer_runs;   // --profile-layers
};

CapacityOutcome run_capacity(const std::vector<CapacityConfig>& configs, const CapacityContext& ctx);

}  // namespace rooflens::capacity
