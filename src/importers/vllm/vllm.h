#pragma once
#include "importers/importer.h"

namespace rooflens::importers {
// vLLM's serving benchmark result (`benchmarks/benchmark_serving.py --save-result`, `vllm bench serve
// --save-result`): one run of an inference server under a request rate or a concurrency, its TTFT/TPOT/ITL/E2E statistics and,
// when saved, each request's TTFT and latency. A generative serving run, not layers (docs/import.md, "vllm").
const Importer& vllm_importer();
}  // namespace rooflens::importers
