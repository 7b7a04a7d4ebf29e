#pragma once
// JSON converters of the capacity section (core/capacity.h), for the report reader and writer.
#include "core/capacity.h"
#include "core/json_fields.h"

namespace rooflens {

void to_json(json& j, const CapacityResult& c);
void from_json(const json& j, CapacityResult& c);

}  // namespace rooflens
