// The leaderboard page: web/scores.html (its own JS plus the report page's helpers and ECharts) assembled at build
// time by cmake/assemble_report_template.cmake and linked in with .incbin, as html_template.cpp does for reports.
#include "reporters/page_templates.h"

#include "core/incbin.h"

#ifndef ROOFLENS_SCORES_TEMPLATE
#error "ROOFLENS_SCORES_TEMPLATE (the assembled web/scores.html) must be defined by the build"
#endif

ROOFLENS_INCBIN(rooflens_scores_template, ROOFLENS_SCORES_TEMPLATE);

namespace rooflens {

std::string_view leaderboard_template() {
  return ROOFLENS_INCBIN_VIEW(rooflens_scores_template);
}

}  // namespace rooflens
