#pragma once
// Reference outputs and the validity gate: a served workload's outputs are kept in the suite as an evenly spaced
// sample of at most kSampleValues elements per output (every element of a small output), with the full shape; the
// gate compares the same elements of what the measured runtime returned, with validation/compare.h's
// assert_allclose semantics and the precision's tolerance.
#include <string>
#include <vector>

#include "core/tensor_value.h"
#include "score/suite.h"
#include "validation/compare.h"

namespace rooflens::score {

inline constexpr int64_t kSampleValues = 1024;

// Throws UserError when an output is not float (the suite keeps float outputs only).
OutputSample sample_output(const TensorValue& v);

struct GateResult {
  bool passed = true;
  double max_abs_error = 0, max_rel_error = 0;
  std::string message;   // why it failed, one line ("" when passed)
};

GateResult check_outputs_against(const std::vector<OutputSample>& expected, const std::vector<TensorValue>& got,
                                 const Tolerance& tol);

// Greedy tokens must be equal, sequence by sequence.
GateResult check_tokens_against(const std::vector<std::vector<int64_t>>& expected,
                                const std::vector<std::vector<int64_t>>& got);

std::string tolerance_text(const Tolerance& t);

}  // namespace rooflens::score
