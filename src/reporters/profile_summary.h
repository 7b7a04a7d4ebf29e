#pragma once
// The terminal summary of a profile report: e2e table per configuration, the top layers with their
// roofline position, warnings and failures.
#include <string>

#include "core/report.h"

namespace rooflens {

std::string profile_summary(const Report& r, size_t top_layers = 10);

}  // namespace rooflens
