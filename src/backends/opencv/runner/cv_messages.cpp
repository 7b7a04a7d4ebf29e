#include "backends/opencv/runner/cv_messages.h"

#include <regex>

namespace rooflens::opencv {

std::string one_line(const cv::Exception& e) {
  static const std::regex prefix(R"(OpenCV\([^)]*\) [^ ]+:\d+: error: \([^)]*\) )");
  static const std::regex quote_marks(R"((\s*>)+\s*)");  // the "> " quoting of nested messages, once per line
  static const std::regex spaces(R"(\s{2,})");
  std::string s = e.err.empty() ? e.what() : e.err;
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  s = std::regex_replace(s, prefix, "");
  s = std::regex_replace(s, quote_marks, " ");
  s = std::regex_replace(s, spaces, " ");
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  if (!e.func.empty() && s.find(" in function") == std::string::npos) s += " (in " + e.func + ")";
  return s;
}

}  // namespace rooflens::opencv
