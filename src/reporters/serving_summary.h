#pragma once
// The terminal view of a generative serving run (`rooflens capacity` on a decoder): the verdict first, then what it
// ran with, the throughput and goodput, the latency table (vLLM's metric names), and the steps.
#include <string>

#include "core/report_serving.h"

namespace rooflens {

std::string serving_summary(const ServingResult& s, const std::string& model, const std::string& runtime);

}  // namespace rooflens
