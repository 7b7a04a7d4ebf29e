#include "reporters/report_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/errors.h"

namespace rooflens {

Report load_profile_report(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError(path + ": cannot open the report");
  std::stringstream text;
  text << f.rdbuf();
  Report r;
  try {
    r = report_from_json(text.str());
  } catch (const std::exception& e) {
    throw UserError(path + ": " + e.what());
  }
  if (r.runs.empty()) {
    if (!r.failures.empty())
      throw UserError(path + ": no configuration of this profile finished (" + std::to_string(r.failures.size()) +
                      " failed); nothing to show");
    throw UserError(path + ": not a profile report (it has no runs); make one with `rooflens profile MODEL -f " +
                    path + "`");
  }
  return r;
}

std::string runtimes_text(const Report& r) {
  std::string out;
  for (const auto& b : r.backends)
    out += (out.empty() ? "" : " + ") + (b.runtime.empty() ? b.name + " " + b.version : b.runtime);
  return out;
}

std::string options_text(const BackendInfo& b) {
  std::string out;
  for (const auto& [k, v] : b.options) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

std::string shapes_text(const std::vector<std::vector<int64_t>>& shapes, const std::string& sep) {
  std::vector<std::string> parts;
  for (const auto& s : shapes) parts.push_back(shape_text(s));
  return join(parts, sep);
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string exact(double v) {
  char buf[64];
  // Whole numbers a double holds exactly print as integers (8000000000, not 8e+09) so spreadsheets keep them.
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {
    std::snprintf(buf, sizeof buf, "%.0f", v == 0 ? 0.0 : v);
    return buf;
  }
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string percent(double ratio, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%%", decimals, ratio * 100);
  return buf;
}

std::string md_code(const std::string& s) {
  if (s.empty()) return "";
  std::string text = s;
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  // CommonMark strips one space from each end when both ends have one, so padding keeps edges exact.
  // (A span of spaces only is kept as is.)
  bool pad = text.find_first_not_of(' ') != std::string::npos &&
             (text.front() == '`' || text.back() == '`' || text.front() == ' ' || text.back() == ' ');
  std::string sp = pad ? " " : "";
  return fence + sp + text + sp + fence;
}

std::vector<std::string> roof_warnings(const Report& r) {
  std::vector<std::string> out;
  if (r.hardware)
    for (const auto& w : r.hardware->warnings) out.push_back("roofs: " + w);
  return out;
}

std::string roofs_text(const HardwareInfo& h) {
  std::string out = h.source + (h.quick ? " (quick)" : "");
  if (!h.measured_at.empty()) out += " " + h.measured_at;
  if (!h.machine.model.empty()) out += " on " + h.machine.model;
  for (const EngineRoofs& e : h.engines) out += "; " + e.engine + ": " + e.runtime + ", measured " + e.measured_at;
  return out;
}

}  // namespace rooflens
