#pragma once
#include "importers/importer.h"

namespace rooflens::importers {
// Nsight Compute's CSV (`ncu --csv`: the details page, or `--page raw`): each profiled kernel a layer, with its
// FLOPs and bytes per memory level when the hierarchical roofline's metrics are in the file, and the device's peaks
// from the file's own peak_sustained metrics (docs/import.md).
const Importer& ncu_importer();
}  // namespace rooflens::importers
