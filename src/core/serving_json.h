#pragma once
// JSON converters of the serving section (core/report_serving.h), for the report reader and writer.
#include "core/json_fields.h"
#include "core/report_serving.h"

namespace rooflens {

void to_json(json& j, const ServingSettings& s);
void from_json(const json& j, ServingSettings& s);
void to_json(json& j, const ServingResult& s);
void from_json(const json& j, ServingResult& s);
void to_json(json& j, const ServingSearch& s);
void from_json(const json& j, ServingSearch& s);
void to_json(json& j, const ServingRoofline& s);
void from_json(const json& j, ServingRoofline& s);

}  // namespace rooflens
