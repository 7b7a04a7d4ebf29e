#include "reporters/html_report.h"

#include <stdexcept>

#include "reporters/compare_report.h"
#include "reporters/page_templates.h"

namespace rooflens {

std::string json_for_script(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 16);
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    // U+2028 / U+2029 in UTF-8: E2 80 A8 / E2 80 A9 (line terminators to older JavaScript parsers).
    else if (c == '\xE2' && i + 2 < json.size() && json[i + 1] == '\x80' && (json[i + 2] == '\xA8' || json[i + 2] == '\xA9')) {
      out += json[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string html_report(const Report& r, const std::vector<Comparison>& runtimes) {
  std::string_view page = report_template();
  size_t at = page.find(kReportDataMarker);
  if (at == std::string_view::npos) throw std::logic_error("the HTML report template has no data marker");
  std::string json = report_to_json(r, -1);
  if (!runtimes.empty()) {
    // The report object with one more member: its closing brace replaced by the comparisons.
    while (!json.empty() && json.back() != '}') json.pop_back();
    json.pop_back();
    json += ",\"runtime_comparisons\":[";
    for (size_t i = 0; i < runtimes.size(); ++i) {
      std::string c = compare_json(runtimes[i], {});
      while (!c.empty() && c.back() == '\n') c.pop_back();
      json += (i ? "," : "") + c;
    }
    json += "]}";
  }
  std::string data = json_for_script(json);
  std::string out;
  out.reserve(page.size() + data.size());
  out.append(page.substr(0, at)).append(data).append(page.substr(at + kReportDataMarker.size()));
  return out;
}

}  // namespace rooflens
