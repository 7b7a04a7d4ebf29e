#pragma once
// The terminal line that explains a decoder's serving throughput on the roofline (capacity/decode_roofline.h): the
// smallest and largest batch's step against its floor, where the step turns compute-bound, and where the KV cache
// outweighs the weights.
#include <string>

#include "core/report_serving.h"

namespace rooflens {

std::string serving_roofline_line(const ServingRoofline& r);

}  // namespace rooflens
