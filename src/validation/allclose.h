#pragma once
// Comparing a model's outputs with reference outputs, with numpy.testing.assert_allclose's semantics:
//   an element of a floating-point output matches when |got - expected| <= atol + rtol * |expected|;
//   NaN matches only NaN (same positions); +inf/-inf match only the same infinity;
//   integer, bool and string outputs must be equal;
// dtype and shape must be equal. An output passes when the mismatching elements are at most
// `percent_mismatch` percent of its elements (0: none may differ), as ONNX Runtime's perf scripts allow.
#include <cstddef>
#include <string>
#include <vector>

#include "core/bench_results.h"
#include "core/tensor_value.h"

namespace rooflens {

struct Tolerance {
  double rtol = 1e-3;             // ONNX's backend test defaults
  double atol = 1e-7;
  double percent_mismatch = 0;
};

inline constexpr size_t kMaxReportedMismatches = 10;

// Compares one output. Appends the first mismatching elements to `first` while it holds fewer than `max_first`.
OutputCheck compare_tensors(const TensorValue& expected, const TensorValue& got, const Tolerance& tol,
                            std::vector<Mismatch>& first, size_t max_first = kMaxReportedMismatches);

// Compares every expected output with the output of the same name in `got` (by position when the expected one
// has no name) and adds the checks to `into` (data set `data_set`). Outputs only `got` has are not checked.
void check_outputs(const std::vector<TensorValue>& expected, const std::vector<TensorValue>& got,
                   const Tolerance& tol, int64_t data_set, Validation& into);

bool validation_passed(const Validation& v);
// One line about the first failed output: "output 'y' (data set 0): 3 of 12 elements differ (25%) beyond rtol
// 0.001, atol 1e-07; max abs error 0.5; first at [0,1,3]: expected 1.5, got 2". "" when it passed.
std::string validation_message(const Validation& v, const Tolerance& tol);
// The failure class of the first failed output: "mismatch" | "shape" | "dtype" | "missing-output" | "unsupported".
std::string validation_error_type(const Validation& v);

// "[0,1,3]": the row-major index of flat element `flat` in `dims`.
std::string multi_index(int64_t flat, const std::vector<int64_t>& dims);

}  // namespace rooflens
