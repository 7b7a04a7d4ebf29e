#pragma once
// The contents of a small tensor as shape resolution knows them: the shapes, constants and user-given input values
// that Reshape targets, Pad amounts, Resize sizes, If conditions and Loop trip counts are computed from. Each
// element is an integer, a float, a symbolic integer (a SymExpr over dim names) or unknown, so "[batch, 197, 768]"
// is a value too. Values are bounded (kMaxValueElements): a larger tensor is never materialised.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/sym_expr.h"
#include "model/tensor.h"

namespace rooflens {

// The most elements one value may hold. Shape arithmetic needs a handful; the cap keeps a hostile file (a Range
// of 2^40 elements, a ConstantOfShape of [1e9]) from making rooflens allocate what the file asks for.
inline constexpr int64_t kMaxValueElements = int64_t{1} << 16;

struct Elem {
  enum class Kind : uint8_t { Unknown, Int, Float, Sym };
  Kind kind = Kind::Unknown;
  int64_t i = 0;                          // Int (bool as 0/1)
  double f = 0;                           // Float
  std::shared_ptr<const SymExpr> sym;     // Sym: an integer whose value is a dim expression

  static Elem integer(int64_t v) { Elem e; e.kind = Kind::Int; e.i = v; return e; }
  static Elem real(double v) { Elem e; e.kind = Kind::Float; e.f = v; return e; }
  static Elem unknown() { return Elem{}; }
  // A symbolic integer; folds to Int when the expression is a constant.
  static Elem symbolic(const SymExpr& s);

  bool known() const { return kind != Kind::Unknown; }
  bool concrete() const { return kind == Kind::Int || kind == Kind::Float; }
  bool operator==(const Elem& o) const;
};

struct ShapeValue {
  DType dtype = DType::Undefined;
  std::vector<int64_t> dims;   // the tensor's own shape: always concrete
  std::vector<Elem> elems;     // row-major, dims' product of them

  int64_t count() const;       // product of dims (1 for a scalar)
  bool concrete() const;       // every element Int or Float
  bool operator==(const ShapeValue& o) const { return dtype == o.dtype && dims == o.dims && elems == o.elems; }
  // Every element as an integer when all are Int; nullopt otherwise.
  std::optional<std::vector<int64_t>> ints() const;
  // "[1, 197, 768]", "[batch*197, 768]", "16000" (a scalar), "?" elements unknown: for notes and errors.
  std::string to_string() const;
};

using ValuePtr = std::shared_ptr<const ShapeValue>;

// Element count of dims when every dim is >= 0 and the product stays within kMaxValueElements; nullopt otherwise.
std::optional<int64_t> bounded_count(const std::vector<int64_t>& dims);

// ShapeValue helpers for the element kinds a dtype allows.
bool dtype_is_integral(DType t);  // the integer types and bool
// The value of element e converted to dtype t's kind (Float for float types, Int for integer/bool types; Sym and
// Unknown stay as they are, a Sym cast to a float type stays an exact integer). Integer targets truncate toward
// zero and wrap as ONNX's Cast does in ORT; a non-finite or out-of-range float becomes unknown.
Elem cast_elem(const Elem& e, DType t);

}  // namespace rooflens
