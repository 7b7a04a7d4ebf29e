// The built-in suite is data/score/v2/suite.json, linked in with .incbin (CMake passes its path and rebuilds this
// object when it changes), so `rooflens score` needs no file at run time.
#include "score/suite_data.h"

#ifndef ROOFLENS_SCORE_SUITE_JSON
#error "ROOFLENS_SCORE_SUITE_JSON (data/score/v2/suite.json) must be defined by the build"
#endif

__asm__(
    ".pushsection .rodata.rooflens_score_suite, \"a\", @progbits\n"
    ".globl rooflens_score_suite_begin\n"
    ".hidden rooflens_score_suite_begin\n"
    "rooflens_score_suite_begin:\n"
    ".incbin \"" ROOFLENS_SCORE_SUITE_JSON "\"\n"
    ".globl rooflens_score_suite_end\n"
    ".hidden rooflens_score_suite_end\n"
    "rooflens_score_suite_end:\n"
    ".byte 0\n"
    ".popsection\n");

extern "C" const char rooflens_score_suite_begin[];
extern "C" const char rooflens_score_suite_end[];

namespace rooflens::score {

std::string_view builtin_suite_json() {
  return {rooflens_score_suite_begin, static_cast<size_t>(rooflens_score_suite_end - rooflens_score_suite_begin)};
}

}  // namespace rooflens::score
