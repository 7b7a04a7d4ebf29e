// The history page: web/history.html (its own JS plus the report page's helpers and ECharts) assembled at build
// time by cmake/assemble_report_template.cmake and linked in with .incbin, as html_template.cpp does for reports.
#include "reporters/page_templates.h"

#include "core/incbin.h"

#ifndef ROOFLENS_HISTORY_TEMPLATE
#error "ROOFLENS_HISTORY_TEMPLATE (the assembled web/history.html) must be defined by the build"
#endif

ROOFLENS_INCBIN(rooflens_history_template, ROOFLENS_HISTORY_TEMPLATE);

namespace rooflens {

std::string_view history_template() {
  return ROOFLENS_INCBIN_VIEW(rooflens_history_template);
}

}  // namespace rooflens
