// The leaderboard page: web/scores.html (its own JS plus the report page's helpers and ECharts) assembled at build
// time by cmake/assemble_report_template.cmake and linked in with .incbin, as html_template.cpp does for reports.
#include "reporters/page_templates.h"

#ifndef ROOFLENS_SCORES_TEMPLATE
#error "ROOFLENS_SCORES_TEMPLATE (the assembled web/scores.html) must be defined by the build"
#endif

__asm__(
    ".pushsection .rodata.rooflens_scores_template, \"a\", @progbits\n"
    ".balign 16\n"
    ".globl rooflens_scores_template_begin\n"
    ".hidden rooflens_scores_template_begin\n"
    "rooflens_scores_template_begin:\n"
    ".incbin \"" ROOFLENS_SCORES_TEMPLATE "\"\n"
    ".globl rooflens_scores_template_end\n"
    ".hidden rooflens_scores_template_end\n"
    "rooflens_scores_template_end:\n"
    ".byte 0\n"
    ".popsection\n");

extern "C" const char rooflens_scores_template_begin[];
extern "C" const char rooflens_scores_template_end[];

namespace rooflens {

std::string_view leaderboard_template() {
  return {rooflens_scores_template_begin,
          static_cast<size_t>(rooflens_scores_template_end - rooflens_scores_template_begin)};
}

}  // namespace rooflens
