#pragma once
// The terminal view of `rooflens capacity` on a decoder with --find-peak or --sweep: the outcome first (the peak and
// its bracket, or the Pareto front and its knee), the objectives, then one row per live run with its prediction.
#include <string>

#include "core/report_serving.h"

namespace rooflens {

std::string serving_search_summary(const ServingSearch& s, const std::string& model, const std::string& runtime);

}  // namespace rooflens
