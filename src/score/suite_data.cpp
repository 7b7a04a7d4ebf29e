// The built-in suite is data/score/v2/suite.json, linked in with .incbin (CMake passes its path and rebuilds this
// object when it changes), so `rooflens score` needs no file at run time.
#include "score/suite_data.h"

#include "core/incbin.h"

#ifndef ROOFLENS_SCORE_SUITE_JSON
#error "ROOFLENS_SCORE_SUITE_JSON (data/score/v2/suite.json) must be defined by the build"
#endif

ROOFLENS_INCBIN(rooflens_score_suite, ROOFLENS_SCORE_SUITE_JSON);

namespace rooflens::score {

std::string_view builtin_suite_json() {
  return ROOFLENS_INCBIN_VIEW(rooflens_score_suite);
}

}  // namespace rooflens::score
