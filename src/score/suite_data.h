#pragma once
// The built-in suite's text, data/score/v2/suite.json as the build found it (suite_data.cpp links it in with .incbin).
// Nothing heavy is included: that file is compiled alone.
#include <string_view>

namespace rooflens::score {

std::string_view builtin_suite_json();

}  // namespace rooflens::score
