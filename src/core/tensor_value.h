#pragma once
// A tensor with its data, as a runtime returned it or a test data file holds it: what validation compares.
// Element types use ONNX's TensorProto.DataType numbers (1 float, 7 int64, 9 bool, 10 float16, ...), so a
// value read from an output_*.pb and one a backend returned speak the same language.
#include <cstdint>
#include <string>
#include <vector>

namespace rooflens {

struct TensorValue {
  std::string name;
  int32_t data_type = 0;             // ONNX TensorProto.DataType; 0 = undefined
  std::vector<int64_t> dims;
  std::string bytes;                 // raw little-endian elements, row-major (bool: one byte per element)
  std::vector<std::string> strings;  // string tensors only

  int64_t elements() const;          // product of dims (1 for a scalar); saturates at INT64_MAX
};

// ONNX's names ("float", "int64", "bool", "float16", "bfloat16", "string", ...); "type<N>" when unknown.
std::string onnx_type_name(int32_t data_type);
// Bytes per element of the fixed-size types; 0 for string and unknown types.
int onnx_type_size(int32_t data_type);
// ONNX type number of an ONNX Runtime (JavaScript API) type name: "float32" -> 1, "int64" -> 7; 0 when unknown.
int32_t onnx_type_from_ort_name(const std::string& ort_name);
// An IEEE half (ONNX float16, TensorProto type 10) as a float, exactly: subnormals, infinities and NaN included.
float float16_to_float(uint16_t bits);

}  // namespace rooflens
