#include "model/value.h"

#include <algorithm>
#include <cmath>

namespace rooflens {

Elem Elem::symbolic(const SymExpr& s) {
  if (s.is_constant()) return integer(s.constant_term());
  Elem e;
  e.kind = Kind::Sym;
  e.sym = std::make_shared<const SymExpr>(s);
  return e;
}

bool Elem::operator==(const Elem& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::Unknown: return false;  // two unknowns are not known to be equal
    case Kind::Int: return i == o.i;
    case Kind::Float: return f == o.f || (std::isnan(f) && std::isnan(o.f));
    case Kind::Sym: return *sym == *o.sym;
  }
  return false;
}

int64_t ShapeValue::count() const {
  int64_t n = 1;
  for (auto d : dims) n *= d;  // dims were bounded when the value was made
  return n;
}

bool ShapeValue::concrete() const {
  for (const auto& e : elems)
    if (!e.concrete()) return false;
  return true;
}

std::optional<std::vector<int64_t>> ShapeValue::ints() const {
  std::vector<int64_t> v;
  v.reserve(elems.size());
  for (const auto& e : elems) {
    if (e.kind != Elem::Kind::Int) return std::nullopt;
    v.push_back(e.i);
  }
  return v;
}

std::string ShapeValue::to_string() const {
  auto one = [](const Elem& e) -> std::string {
    switch (e.kind) {
      case Elem::Kind::Int: return std::to_string(e.i);
      case Elem::Kind::Float: {
        std::string s = std::to_string(e.f);
        while (s.size() > 1 && s.back() == '0') s.pop_back();
        if (!s.empty() && s.back() == '.') s.pop_back();
        return s;
      }
      case Elem::Kind::Sym: return e.sym->to_string();
      case Elem::Kind::Unknown: return "?";
    }
    return "?";
  };
  if (dims.empty() && elems.size() == 1) return one(elems[0]);
  std::string s = "[";
  const size_t shown = std::min<size_t>(elems.size(), 16);
  for (size_t i = 0; i < shown; ++i) s += (i ? ", " : "") + one(elems[i]);
  if (shown < elems.size()) s += ", … (" + std::to_string(elems.size()) + " elements)";
  return s + "]";
}

std::optional<int64_t> bounded_count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (auto d : dims) {
    if (d < 0) return std::nullopt;
    if (d == 0) return 0;  // an empty tensor, however large its other dims claim to be
  }
  for (auto d : dims) {
    if (d > kMaxValueElements) return std::nullopt;
    n *= d;
    if (n > kMaxValueElements) return std::nullopt;
  }
  return n;
}

bool dtype_is_integral(DType t) {
  switch (t) {
    case DType::Int8: case DType::Int16: case DType::Int32: case DType::Int64:
    case DType::UInt8: case DType::UInt16: case DType::UInt32: case DType::UInt64: case DType::Bool:
      return true;
    default:
      return false;
  }
}

namespace {

// Wraps a 64-bit integer into dtype t's range, as a C cast between integer types does.
int64_t wrap_to(int64_t v, DType t) {
  switch (t) {
    case DType::Bool: return v != 0;
    case DType::Int8: return static_cast<int8_t>(static_cast<uint8_t>(v));
    case DType::UInt8: return static_cast<uint8_t>(v);
    case DType::Int16: return static_cast<int16_t>(static_cast<uint16_t>(v));
    case DType::UInt16: return static_cast<uint16_t>(v);
    case DType::Int32: return static_cast<int32_t>(static_cast<uint32_t>(v));
    case DType::UInt32: return static_cast<uint32_t>(v);
    default: return v;  // int64; uint64 values above INT64_MAX are not representable here and stay wrapped
  }
}

// v rounded to the nearest half-precision value (ties to even), as a cast to float16 stores it: 10 mantissa bits,
// exponents down to -14, subnormals to 2^-24, overflow to infinity.
double to_half(double v) {
  if (!std::isfinite(v) || v == 0) return v;
  const double a = std::fabs(v);
  if (a >= 65520.0) return std::copysign(INFINITY, v);
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e with m in [0.5, 1)
  const double quantum = std::ldexp(1.0, std::max(e - 1, -14) - 10);
  return std::copysign(std::nearbyint(a / quantum) * quantum, v);
}

// Largest double strictly below 2^63: casting anything at or beyond ±2^63 to int64 is undefined behaviour.
constexpr double kInt64Limit = 9223372036854775808.0;

}  // namespace

Elem cast_elem(const Elem& e, DType t) {
  if (e.kind == Elem::Kind::Unknown) return e;
  const bool to_float = dtype_is_float(t);
  if (e.kind == Elem::Kind::Sym) {
    // A symbolic dim is a non-negative integer: it survives casts to floats and wide integers unchanged.
    if (to_float || t == DType::Int64 || t == DType::Int32 || t == DType::UInt64 || t == DType::UInt32) return e;
    return Elem::unknown();
  }
  if (to_float) {
    double v = e.kind == Elem::Kind::Int ? static_cast<double>(e.i) : e.f;
    if (t == DType::Float) v = static_cast<double>(static_cast<float>(v));
    if (t == DType::Float16) v = to_half(v);
    return Elem::real(v);
  }
  if (e.kind == Elem::Kind::Int) return Elem::integer(wrap_to(e.i, t));
  if (t == DType::Bool) return Elem::integer(e.f != 0);
  if (!std::isfinite(e.f) || e.f >= kInt64Limit || e.f < -kInt64Limit) return Elem::unknown();
  return Elem::integer(wrap_to(static_cast<int64_t>(e.f), t));  // truncation toward zero
}

}  // namespace rooflens
