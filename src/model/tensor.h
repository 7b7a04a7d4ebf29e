#pragma once
// Tensor metadata as rooflens sees it: element type and a (possibly partly symbolic) shape.
// No tensor data lives here; weights stay in the mapped file (see model/loader.h).
#include <cstdint>
#include <string>
#include <vector>

namespace rooflens {

// Values are ONNX TensorProto.DataType numbers so they survive a round trip through ONNX untouched.
enum class DType : int32_t {
  Undefined = 0, Float = 1, UInt8 = 2, Int8 = 3, UInt16 = 4, Int16 = 5, Int32 = 6, Int64 = 7,
  String = 8, Bool = 9, Float16 = 10, Double = 11, UInt32 = 12, UInt64 = 13, Complex64 = 14,
  Complex128 = 15, BFloat16 = 16, Float8E4M3FN = 17, Float8E4M3FNUZ = 18, Float8E5M2 = 19,
  Float8E5M2FNUZ = 20, UInt4 = 21, Int4 = 22,
};

// Size of one element in bits (int4 packs two per byte). 0 for undefined/string.
int dtype_bits(DType t);
const char* dtype_name(DType t);
DType dtype_from_name(const std::string& name);  // Undefined when unknown
bool dtype_is_float(DType t);

struct Dim {
  int64_t value = -1;   // >= 0 when known
  std::string symbol;   // e.g. "batch" when symbolic; empty when fully unknown or known
  bool known() const { return value >= 0; }
};

// What kind of value a name carries. Sequences, maps and optionals have no single shape; they count as
// resolved once their kind is known, and their bytes as unknown (0).
enum class ValueKind { Unknown, Tensor, Sequence, Map, Optional, SparseTensor };

struct TensorInfo {
  ValueKind kind = ValueKind::Tensor;
  DType dtype = DType::Undefined;
  bool has_rank = false;  // false: nothing known about the shape
  std::vector<Dim> dims;
  bool from_runtime = false;  // dims taken from the shapes a runtime reported (static resolution had none)

  bool fully_known() const;  // tensor with every dim known
  bool resolved() const;      // fully_known tensor, or a non-tensor value of known kind
  // Element count, saturating; -1 when any dim is unknown.
  int64_t elements() const;
  // Bytes at dtype size, saturating; 0 when unknown.
  uint64_t bytes() const;
  std::vector<int64_t> values() const;  // dims as ints (-1 for unknown)
  std::string shape_string() const;     // "1x3x224x224", "batchx3x?x?", "scalar", "?"
};

TensorInfo make_tensor_info(DType t, const std::vector<int64_t>& dims);

}  // namespace rooflens
