#pragma once
#include "importers/importer.h"

namespace rooflens::importers {
// MegEngine's load_and_run --profile JSON (graph_exec + profiler.device/host/opr_footprint). Options:
// clock=device|host (default device), end=end|kern (default end: MegEngine's analyzer's --top-end-key).
const Importer& megengine_importer();
}  // namespace rooflens::importers
