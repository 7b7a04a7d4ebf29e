#pragma once
// A cv::Exception as the runner reports it: one line, OpenCV's own words.
#include <string>

#include <opencv2/core.hpp>

namespace rooflens::opencv {

// The message of a cv::Exception in one line, without the "OpenCV(4.6.0) <source file>:<line>: error: (-2:...)"
// prefixes and "> " quoting its nested messages carry (they name OpenCV's build tree, not the user's problem).
std::string one_line(const cv::Exception& e);

}  // namespace rooflens::opencv
