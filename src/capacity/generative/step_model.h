#pragma once
// The step-time model a prediction simulates with (null_executor.h's StepCost), fitted by least squares to calls
// timed in a calibration — never to the run it predicts:
//   a prompt of L tokens, alone in its call:      ms = per prefill call + per prefill token × L
//   a decode call of B rows over C context tokens (padded), R of them copied because the batch changed:
//                                                  ms = per decode call + per decode row × B + per context token × C
//                                                       + per rebuilt token × R
// A coefficient the fit makes negative (noise on a flat term) is held at 0 and the others fitted again; a term no
// call exercises (no rebuild timed) is 0.
#include <cstdint>
#include <vector>

#include "capacity/generative/null_executor.h"

namespace rooflens::capacity::generative {

struct TimedCall {
  int64_t prefill_tokens = 0;  // a prefill call: its prompt tokens (rows and context 0)
  int64_t rows = 0;            // a decode call: its rows
  int64_t context = 0;         // and the context they attend to, padded (rows × the longest row's)
  int64_t rebuilt = 0;         // the context tokens copied first because the batch's membership changed
  double ms = 0;
};

// Needs at least two prefill calls of different lengths and three decode calls that are not collinear in (rows,
// context); throws std::invalid_argument otherwise.
StepCost fit_step_cost(const std::vector<TimedCall>& prefill, const std::vector<TimedCall>& decode);

}  // namespace rooflens::capacity::generative
