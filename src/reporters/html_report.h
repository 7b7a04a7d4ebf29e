#pragma once
// `rooflens report` / `profile --html`: the report as ONE self-contained HTML page (web/ front end with ECharts,
// inlined at build time; the report embedded as JSON). Opens from file:// and makes no network request.
#include <string>
#include <string_view>

#include <vector>

#include "core/comparison.h"
#include "core/report.h"

namespace rooflens {

// `runtimes`: for a report of several backends, each further backend compared with the first
// (compare/runtimes.h); the page embeds them (as rooflens.compare/1 objects under "runtime_comparisons") and shows
// the runtimes side by side.
std::string html_report(const Report& r, const std::vector<Comparison>& runtimes = {});

// JSON text made safe inside <script type="application/json">: '<', '>', '&', U+2028 and U+2029 become \uXXXX
// escapes, so no string in the report (a node named "</script>...") can end the element or be read as markup.
// Those characters only occur inside JSON strings, where the escapes mean the same characters.
std::string json_for_script(std::string_view json);

// Where the report page (reporters/page_templates.h) takes its data.
inline constexpr std::string_view kReportDataMarker = "@ROOFLENS_DATA@";

}  // namespace rooflens
