#pragma once
#include "importers/importer.h"

namespace rooflens::importers {
// NVIDIA AIPerf's summary export (`profile_export_aiperf.json`; GenAI-Perf's `profile_export_genai_perf.json` has the
// same per-metric layout): one run of an inference server under a concurrency or a request rate, each metric's statistics. A
// generative serving run, not layers (docs/import.md, "aiperf").
const Importer& aiperf_importer();
}  // namespace rooflens::importers
