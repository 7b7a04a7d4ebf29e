#pragma once
// `--profile-layers`: each instance's layers under a server load. A second pool whose inference sessions record their
// kernels serves a server run at the given QPS; each instance's kernels (warm-up calls left out) become a ProfileRun,
// mapped to the user's nodes and placed on the roofline by the same assembly as `rooflens profile` (keyed with dims
// {"instance": i}), so `rooflens compare` shows which layers slowed down under contention.
#include <vector>

#include "backends/backend.h"
#include "capacity/loadgen/engine.h"
#include "capacity/sut/pool.h"
#include "capacity/sut/served_model.h"
#include "core/report_hardware.h"
#include "core/report_run.h"

namespace rooflens::capacity {

struct UnderLoad {
  PoolSpec pool;                 // serving.profile is set here
  RunPlan plan;                  // a server run
  const ServedModel* served = nullptr;
  const HardwareInfo* roofs = nullptr;
  int64_t threads = 1;
};

// Throws BackendError when an instance fails; returns one run per instance.
std::vector<ProfileRun> profile_under_load(Backend& backend, UnderLoad u, const EngineHooks& hooks);

}  // namespace rooflens::capacity
