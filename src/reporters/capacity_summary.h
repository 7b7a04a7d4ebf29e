#pragma once
// The terminal view of `rooflens capacity` (core/capacity.h): verdict first, then the tables.
#include <string>

#include "core/capacity.h"

namespace rooflens {

std::string capacity_summary(const CapacityResult& c, const std::string& model, const std::string& runtime);

}  // namespace rooflens
