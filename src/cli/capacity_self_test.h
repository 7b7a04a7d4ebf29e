#pragma once
// `rooflens capacity --self-test`: the generator's own cost. It serves a one-Identity model (zoo/identity.h), whose
// runtime call does nothing, so what is measured is the path around it: the engine alone against a null system,
// then Offline through the real runners (its throughput: the most queries per second rooflens can issue, pipe and
// answer here), then a Poisson server run at half that rate (the issue lag and the latency the path adds).
#include "cli/capacity_flags.h"

namespace rooflens::cli {

int run_self_test(CapacityCommand& a);

}  // namespace rooflens::cli
