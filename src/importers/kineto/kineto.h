#pragma once
#include "importers/importer.h"

namespace rooflens::importers {
// PyTorch profiler traces as Kineto writes them (Chrome trace JSON, plain or gzipped): GPU kernels, memcpys and
// memsets, each under the cpu_op that launched it, per ProfilerStep when the trace has steps.
const Importer& kineto_importer();
}  // namespace rooflens::importers
