#pragma once
// The HTML pages web/ holds, assembled at build time (cmake/assemble_report_template.cmake) and linked into the binary
// with .incbin by one small file each (*_template.cpp). This header includes nothing heavy on purpose: those files
// are compiled alone (each has its own path definition) and should cost no more than the assembler's work.
#include <string_view>

namespace rooflens {

std::string_view report_template();       // html_template.cpp: web/report.html
std::string_view history_template();      // history_template.cpp: web/history.html
std::string_view leaderboard_template();  // score_leaderboard_template.cpp: web/scores.html

}  // namespace rooflens
