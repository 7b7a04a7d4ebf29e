#include "core/tensor_value.h"

#include <array>
#include <cstring>
#include <limits>
#include <map>

namespace rooflens {
namespace {

struct TypeRow { int32_t id; const char* onnx; const char* ort; int size; };

// One row per ONNX element type rooflens can carry (ort name "" where ONNX Runtime's JS API has none).
constexpr std::array<TypeRow, 16> kTypes{{
    {1, "float", "float32", 4},   {2, "uint8", "uint8", 1},     {3, "int8", "int8", 1},
    {4, "uint16", "uint16", 2},   {5, "int16", "int16", 2},     {6, "int32", "int32", 4},
    {7, "int64", "int64", 8},     {8, "string", "string", 0},   {9, "bool", "bool", 1},
    {10, "float16", "float16", 2}, {11, "double", "float64", 8}, {12, "uint32", "uint32", 4},
    {13, "uint64", "uint64", 8},  {14, "complex64", "", 8},     {15, "complex128", "", 16},
    {16, "bfloat16", "bfloat16", 2},
}};

const TypeRow* find_type(int32_t id) {
  for (const auto& t : kTypes)
    if (t.id == id) return &t;
  return nullptr;
}

}  // namespace

int64_t TensorValue::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d <= 0) return 0;
    if (n > std::numeric_limits<int64_t>::max() / d) return std::numeric_limits<int64_t>::max();
    n *= d;
  }
  return n;
}

std::string onnx_type_name(int32_t data_type) {
  const TypeRow* t = find_type(data_type);
  return t ? t->onnx : "type" + std::to_string(data_type);
}

int onnx_type_size(int32_t data_type) {
  const TypeRow* t = find_type(data_type);
  return t ? t->size : 0;
}

int32_t onnx_type_from_ort_name(const std::string& ort_name) {
  for (const auto& t : kTypes)
    if (!ort_name.empty() && ort_name == t.ort) return t.id;
  return 0;
}

float float16_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (mant << 13);                     // inf / NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);            // normal: rebias 15 -> 127
  } else if (mant == 0) {
    bits = sign;                                                 // ±0
  } else {                                                       // subnormal half: normalise
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while (!(mant & 0x400));
    bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace rooflens
