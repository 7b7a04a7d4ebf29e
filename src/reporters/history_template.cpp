// The history page: web/history.html (its own JS plus the report page's helpers and ECharts) assembled at build
// time by cmake/assemble_report_template.cmake and linked in with .incbin, as html_template.cpp does for reports.
#include "reporters/page_templates.h"

#ifndef ROOFLENS_HISTORY_TEMPLATE
#error "ROOFLENS_HISTORY_TEMPLATE (the assembled web/history.html) must be defined by the build"
#endif

__asm__(
    ".pushsection .rodata.rooflens_history_template, \"a\", @progbits\n"
    ".balign 16\n"
    ".globl rooflens_history_template_begin\n"
    ".hidden rooflens_history_template_begin\n"
    "rooflens_history_template_begin:\n"
    ".incbin \"" ROOFLENS_HISTORY_TEMPLATE "\"\n"
    ".globl rooflens_history_template_end\n"
    ".hidden rooflens_history_template_end\n"
    "rooflens_history_template_end:\n"
    ".byte 0\n"
    ".popsection\n");

extern "C" const char rooflens_history_template_begin[];
extern "C" const char rooflens_history_template_end[];

namespace rooflens {

std::string_view history_template() {
  return {rooflens_history_template_begin,
          static_cast<size_t>(rooflens_history_template_end - rooflens_history_template_begin)};
}

}  // namespace rooflens
