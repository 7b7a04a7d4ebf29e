#pragma once
#include "importers/importer.h"

namespace rooflens::importers {
// OpenVINO benchmark_app's per-layer reports (-report_type detailed_counters|average_counters: ';'-separated CSV)
// and/or its executable graph (-exec_graph_path: IR XML with per-layer execTimeMcs and originalLayersNames).
const Importer& openvino_importer();
}  // namespace rooflens::importers
