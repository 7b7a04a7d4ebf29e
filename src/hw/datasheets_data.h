#pragma once
// The datasheet table's text, data/datasheets.json as the build found it (datasheets_data.cpp links it in with
// .incbin, so the binary needs no file at run time). Nothing heavy is included: that file is compiled alone.
#include <string_view>

namespace rooflens::hw {

std::string_view datasheets_json();

}  // namespace rooflens::hw
