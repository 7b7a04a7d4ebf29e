// The built-in suite is data/score/v2/suite.json, linked in with .incbin (CMake passes its path and rebuilds this
// object when it changes), so `rooflens score` needs no file at run time.
#include <string>

#include "score/suite.h"

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

const Suite& builtin_suite() {
  static const Suite s = parse_suite(std::string(rooflens_score_suite_begin, rooflens_score_suite_end),
                                     "the built-in suite (data/score/v2/suite.json)");
  return s;
}

}  // namespace rooflens::score
