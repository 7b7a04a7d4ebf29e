#pragma once
#include "importers/importer.h"

namespace rooflens::importers {
// Nsight Systems' SQLite export (nsys export --type sqlite): each distinct kernel, memcpy and memset kind a layer,
// per NVTX iteration range or over the whole capture. Options: iterations=nvtx|capture, range=NAME.
const Importer& nsys_importer();
}  // namespace rooflens::importers
