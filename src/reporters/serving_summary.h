#pragma once
// The terminal view of a generative serving run (`rooflens capacity` on a decoder): the verdict first, then what it
// ran with, the throughput and goodput, the latency table (vLLM's metric names), and the steps.
#include <string>

#include "core/report_serving.h"

namespace rooflens {

std::string serving_summary(const ServingResult& s, const std::string& model, const std::string& runtime);

// The objectives a run was judged by: "p99 TTFT <= 2000 ms, TPOT <= 100 ms (MLPerf llama3.1-8b)".
std::string serving_objectives(const ServingSettings& s);

}  // namespace rooflens
