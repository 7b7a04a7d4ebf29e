#pragma once
// A model's outputs compared with reference outputs (validation/allclose.h does the comparing): what `bench`'s
// validation (core/bench_results.h) and profile's int8 check (core/int8_kernels.h) record.
#include <cstdint>
#include <string>
#include <vector>

namespace rooflens {

// One element that differs from the reference, values as text (numbers with enough digits to round-trip).
struct Mismatch {
  std::string output;             // output name
  int64_t index = 0;              // flat (row-major) element index
  std::string expected, got;
  int64_t data_set = 0;           // which test data set (0 for test_data_set_0 or a reference configuration)
};

// One model output compared with its reference.
struct OutputCheck {
  std::string name, dtype;
  std::vector<int64_t> shape;
  uint64_t elements = 0, mismatched = 0;
  double max_abs_error = 0, max_rel_error = 0;  // over finite elements
  bool passed = true;
  std::string note;               // why it failed when not an element mismatch ("shape differs: ...")
  int64_t data_set = 0;           // which test data set
  std::string failure;            // "" (passed) | "mismatch" | "shape" | "dtype" | "missing-output" | "unsupported"
};

// Every output of a model compared with reference outputs.
struct Validation {
  std::string reference;          // bench: "test_data_set_0" (expected output_*.pb) or "config:<label>"; profile's
                                  // int8 check: "opt-level disabled" (core/int8_kernels.h)
  int64_t data_sets = 0;          // data sets compared
  std::vector<OutputCheck> outputs;
  std::vector<Mismatch> first_mismatches;  // the first few, in order
};

}  // namespace rooflens
