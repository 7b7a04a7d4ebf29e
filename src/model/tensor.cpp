#include "model/tensor.h"

#include <array>

#include "core/saturating.h"

namespace rooflens {
namespace {
struct DTypeRow { DType t; const char* name; int bits; bool is_float; };
constexpr std::array<DTypeRow, 23> kDTypes{{
    {DType::Undefined, "undefined", 0, false}, {DType::Float, "float", 32, true},
    {DType::UInt8, "uint8", 8, false},         {DType::Int8, "int8", 8, false},
    {DType::UInt16, "uint16", 16, false},      {DType::Int16, "int16", 16, false},
    {DType::Int32, "int32", 32, false},        {DType::Int64, "int64", 64, false},
    {DType::String, "string", 0, false},       {DType::Bool, "bool", 8, false},
    {DType::Float16, "float16", 16, true},     {DType::Double, "double", 64, true},
    {DType::UInt32, "uint32", 32, false},      {DType::UInt64, "uint64", 64, false},
    {DType::Complex64, "complex64", 64, true}, {DType::Complex128, "complex128", 128, true},
    {DType::BFloat16, "bfloat16", 16, true},   {DType::Float8E4M3FN, "float8e4m3fn", 8, true},
    {DType::Float8E4M3FNUZ, "float8e4m3fnuz", 8, true}, {DType::Float8E5M2, "float8e5m2", 8, true},
    {DType::Float8E5M2FNUZ, "float8e5m2fnuz", 8, true}, {DType::UInt4, "uint4", 4, false},
    {DType::Int4, "int4", 4, false},
}};
const DTypeRow* row(DType t) {
  auto i = static_cast<int32_t>(t);
  return (i >= 0 && i < static_cast<int32_t>(kDTypes.size())) ? &kDTypes[i] : nullptr;
}
}  // namespace

int dtype_bits(DType t) { auto* r = row(t); return r ? r->bits : 0; }
const char* dtype_name(DType t) { auto* r = row(t); return r ? r->name : "undefined"; }
bool dtype_is_float(DType t) { auto* r = row(t); return r && r->is_float; }
DType dtype_from_name(const std::string& name) {
  for (const auto& r : kDTypes)
    if (name == r.name) return r.t;
  return DType::Undefined;
}

bool TensorInfo::fully_known() const {
  if (kind != ValueKind::Tensor || !has_rank) return false;
  for (const auto& d : dims)
    if (!d.known()) return false;
  return true;
}

bool TensorInfo::resolved() const {
  if (kind == ValueKind::Tensor) return fully_known();
  return kind != ValueKind::Unknown;
}

int64_t TensorInfo::elements() const {
  if (!fully_known()) return -1;
  uint64_t n = 1;
  for (const auto& d : dims) n = sat_mul(n, static_cast<uint64_t>(d.value));
  return n > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(n);
}

uint64_t TensorInfo::bytes() const {
  int64_t n = elements();
  if (n < 0) return 0;
  uint64_t bits = sat_mul(static_cast<uint64_t>(n), static_cast<uint64_t>(dtype_bits(dtype)));
  return bits == kCountMax ? kCountMax : (bits + 7) / 8;
}

std::vector<int64_t> TensorInfo::values() const {
  std::vector<int64_t> v;
  v.reserve(dims.size());
  for (const auto& d : dims) v.push_back(d.value);
  return v;
}

std::string TensorInfo::shape_string() const {
  if (kind == ValueKind::Sequence) return "sequence";
  if (kind == ValueKind::Map) return "map";
  if (kind == ValueKind::Optional) return "optional";
  if (!has_rank) return "?";
  if (dims.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += 'x';
    if (dims[i].known()) s += std::to_string(dims[i].value);
    else s += dims[i].symbol.empty() ? "?" : dims[i].symbol;
  }
  return s;
}

TensorInfo make_tensor_info(DType t, const std::vector<int64_t>& dims) {
  TensorInfo info;
  info.dtype = t;
  info.has_rank = true;
  for (auto v : dims) info.dims.push_back(Dim{v < 0 ? -1 : v, {}});
  return info;
}

}  // namespace rooflens
