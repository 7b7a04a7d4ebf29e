#pragma once
// OpenCV's failure messages in short stable classes ("opencv:unsupported-op"), so `rooflens bench -B opencv`
// groups a zoo's failures by what OpenCV could not do.
#include <string>

namespace rooflens::opencv {

// "opencv:<class>" from known patterns of OpenCV's messages; "opencv" when none matches.
std::string classify(const std::string& message);

}  // namespace rooflens::opencv
