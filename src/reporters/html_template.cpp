// The HTML report's page: web/ (HTML, CSS, app JS, ECharts' minified build) assembled into one file at build
// time by cmake/assemble_report_template.cmake and linked into the binary here with .incbin, so `rooflens
// report` needs no file at run time. CMake passes the assembled file's path and rebuilds this object when it
// changes (OBJECT_DEPENDS).
#include "reporters/page_templates.h"

#include "core/incbin.h"

#ifndef ROOFLENS_REPORT_TEMPLATE
#error "ROOFLENS_REPORT_TEMPLATE (the assembled web/report.html) must be defined by the build"
#endif

ROOFLENS_INCBIN(rooflens_report_template, ROOFLENS_REPORT_TEMPLATE);

namespace rooflens {

std::string_view report_template() {
  return ROOFLENS_INCBIN_VIEW(rooflens_report_template);
}

}  // namespace rooflens
