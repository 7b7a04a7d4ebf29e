#pragma once
#include "importers/importer.h"

namespace rooflens::importers {
// trtexec's --exportLayerInfo / --exportProfile / --exportTimes files and TREx's metadata JSON (any subset with a
// profile, layer info or timing export among them).
const Importer& trtexec_importer();
}  // namespace rooflens::importers
