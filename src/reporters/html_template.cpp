// The HTML report's page: web/ (HTML, CSS, app JS, ECharts' minified build) assembled into one file at build
// time by cmake/assemble_report_template.cmake and linked into the binary here with .incbin, so `rooflens
// report` needs no file at run time. CMake passes the assembled file's path and rebuilds this object when it
// changes (OBJECT_DEPENDS).
#include "reporters/page_templates.h"

#ifndef ROOFLENS_REPORT_TEMPLATE
#error "ROOFLENS_REPORT_TEMPLATE (the assembled web/report.html) must be defined by the build"
#endif

__asm__(
    ".pushsection .rodata.rooflens_report_template, \"a\", @progbits\n"
    ".balign 16\n"
    ".globl rooflens_report_template_begin\n"
    ".hidden rooflens_report_template_begin\n"
    "rooflens_report_template_begin:\n"
    ".incbin \"" ROOFLENS_REPORT_TEMPLATE "\"\n"
    ".globl rooflens_report_template_end\n"
    ".hidden rooflens_report_template_end\n"
    "rooflens_report_template_end:\n"
    ".byte 0\n"
    ".popsection\n");

extern "C" const char rooflens_report_template_begin[];
extern "C" const char rooflens_report_template_end[];

namespace rooflens {

std::string_view report_template() {
  return {rooflens_report_template_begin,
          static_cast<size_t>(rooflens_report_template_end - rooflens_report_template_begin)};
}

}  // namespace rooflens
