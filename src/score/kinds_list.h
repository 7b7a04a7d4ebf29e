#pragma once
// The workload kinds (each in its own file), for the registry in kinds.cpp.
#include "score/kind.h"

namespace rooflens::score {

const WorkloadKind& served_kind();   // served.cpp: single-stream latency and offline throughput through capacity
const WorkloadKind& decoder_kind();  // decoder.cpp: prefill and decode tokens/s through generation

}  // namespace rooflens::score
