// Value functions of the arithmetic, comparison and logic ops, and the small reductions. Integer arithmetic is
// overflow-checked and follows ONNX Runtime (Div truncates toward zero; Mod follows the divisor's sign unless
// fmod=1); float arithmetic is done in double and rounded to float for float tensors. Symbolic elements take
// part where the answer stays a simple expression: batch*197, seq+1, (batch*197)/197 = batch.
#include <cmath>
#include <functional>

#include "model/value_eval.h"

namespace rooflens {

namespace value_ops_math {  // this table's Row, kRows and helpers: another table's are spelled the same
using namespace value_util;
namespace {

using Out = EvalOutputs;
using K = Elem::Kind;

Out one(std::optional<ShapeValue> v) {
  Out o;
  o.push_back(std::move(v));
  return o;
}

double as_double(const Elem& e) { return e.kind == K::Int ? static_cast<double>(e.i) : e.f; }

// An element as an expression when it is an integer (symbolic, Int, or an integral Float).
std::optional<SymExpr> as_expr(const Elem& e) {
  if (e.kind == K::Sym) return *e.sym;
  if (e.kind == K::Int) return SymExpr::constant(e.i);
  if (e.kind == K::Float && std::isfinite(e.f) && e.f == std::floor(e.f) && std::fabs(e.f) < 9.0e15)
    return SymExpr::constant(static_cast<int64_t>(e.f));
  return std::nullopt;
}

Elem from_expr(const std::optional<SymExpr>& s) { return s ? Elem::symbolic(*s) : Elem::unknown(); }

// Rounds a double result to the tensor's float type.
Elem real_of(double v, DType t) { return Elem::real(t == DType::Float ? static_cast<double>(static_cast<float>(v)) : v); }

enum class Arith { Add, Sub, Mul, Div, Mod, Min, Max, Pow };

int64_t int_op(Arith op, int64_t a, int64_t b, bool fmod) {
  int64_t r = 0;
  switch (op) {
    case Arith::Add: if (__builtin_add_overflow(a, b, &r)) throw EvalError("integer overflow in Add"); return r;
    case Arith::Sub: if (__builtin_sub_overflow(a, b, &r)) throw EvalError("integer overflow in Sub"); return r;
    case Arith::Mul: if (__builtin_mul_overflow(a, b, &r)) throw EvalError("integer overflow in Mul"); return r;
    case Arith::Div:
      if (b == 0) throw EvalError("integer division by zero");
      if (a == INT64_MIN && b == -1) throw EvalError("integer overflow in Div");
      return a / b;
    case Arith::Mod: {
      if (b == 0) throw EvalError("integer modulo by zero");
      if (b == -1) return 0;
      r = a % b;
      if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;  // Python-style: the sign of the divisor
      return r;
    }
    case Arith::Min: return std::min(a, b);
    case Arith::Max: return std::max(a, b);
    case Arith::Pow: {
      // |a| <= 1 never overflows (and must not loop 2^62 times); other bases overflow within 63 steps.
      if (a == 1 || (a == 0 && b != 0)) return a;
      if (a == -1) return b % 2 ? -1 : 1;
      if (b < 0) return 0;  // 1 / a^|b| truncated toward zero, as integer Pow does
      int64_t acc = 1;
      for (int64_t k = 0; k < b; ++k)
        if (__builtin_mul_overflow(acc, a, &acc)) throw EvalError("integer overflow in Pow");
      return acc;
    }
  }
  return 0;
}

double real_op(Arith op, double a, double b, bool fmod) {
  switch (op) {
    case Arith::Add: return a + b;
    case Arith::Sub: return a - b;
    case Arith::Mul: return a * b;
    case Arith::Div: return a / b;  // IEEE: inf/nan, as the runtime would produce
    case Arith::Mod: return fmod ? std::fmod(a, b) : a - b * std::floor(a / b);
    case Arith::Min: return std::min(a, b);
    case Arith::Max: return std::max(a, b);
    case Arith::Pow: return std::pow(a, b);
  }
  return 0;
}

// Symbolic arithmetic: exact or unknown.
Elem sym_op(Arith op, const Elem& a, const Elem& b) {
  auto x = as_expr(a), y = as_expr(b);
  if (!x || !y) return Elem::unknown();
  switch (op) {
    case Arith::Add: return from_expr(x->add(*y));
    case Arith::Sub: return from_expr(x->sub(*y));
    case Arith::Mul: return from_expr(x->mul(*y));
    case Arith::Div: return y->is_constant() && y->constant_term() != 0 ? from_expr(x->div_exact(y->constant_term())) : Elem::unknown();
    case Arith::Min: case Arith::Max: {
      auto d = x->sub(*y);  // decidable when the difference is a constant
      if (!d || !d->is_constant()) return Elem::unknown();
      const bool a_smaller = d->constant_term() < 0;
      return (op == Arith::Min) == a_smaller ? a : b;
    }
    default: return Elem::unknown();
  }
}

Elem arith(Arith op, const Elem& a, const Elem& b, DType t, bool fmod) {
  if (!a.known() || !b.known()) return Elem::unknown();
  if (a.kind == K::Sym || b.kind == K::Sym) return sym_op(op, a, b);
  if (dtype_is_integral(t) && a.kind == K::Int && b.kind == K::Int) return cast_elem(Elem::integer(int_op(op, a.i, b.i, fmod)), t);
  return real_of(real_op(op, as_double(a), as_double(b), fmod), t);
}

// Applies f elementwise over the broadcast of the inputs; nullopt when any input is unknown.
template <typename F>
Out broadcast_map(const EvalInput& in, size_t arity, DType out_type, F f) {
  std::vector<const ShapeValue*> xs;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < arity; ++i) {
    const ShapeValue* x = in.value(i);
    if (!x) return one(std::nullopt);
    xs.push_back(x);
    auto d = broadcast_dims(dims, x->dims);
    if (!d) return one(std::nullopt);
    dims = *d;
  }
  auto v = sized(out_type, dims);
  std::vector<const Elem*> args(arity);
  for (size_t i = 0; i < v->elems.size(); ++i) {
    for (size_t k = 0; k < arity; ++k)
      args[k] = &xs[k]->elems[static_cast<size_t>(broadcast_index(static_cast<int64_t>(i), dims, xs[k]->dims))];
    v->elems[i] = f(args);
  }
  return one(std::move(v));
}

EvalFn binary(Arith op) {
  return [op](const EvalInput& in) {
    const ShapeValue* a = in.value(0);
    if (!a) return one(std::nullopt);
    const DType t = a->dtype;
    const bool fmod = in.node->attr_i("fmod", 0) != 0;
    return broadcast_map(in, 2, t, [&](const std::vector<const Elem*>& x) { return arith(op, *x[0], *x[1], t, fmod); });
  };
}

// Variadic Min/Max/Sum fold left over their inputs.
EvalFn variadic(Arith op) {
  return [op](const EvalInput& in) {
    const size_t n = in.node->inputs.size();
    if (n == 0 || !in.value(0)) return one(std::nullopt);
    const DType t = in.value(0)->dtype;
    return broadcast_map(in, n, t, [&](const std::vector<const Elem*>& x) {
      Elem acc = *x[0];
      for (size_t k = 1; k < x.size(); ++k) acc = arith(op, acc, *x[k], t, false);
      return acc;
    });
  };
}

EvalFn unary(std::function<Elem(const Elem&, DType)> f) {
  return [f](const EvalInput& in) {
    const ShapeValue* a = in.value(0);
    if (!a) return one(std::nullopt);
    ShapeValue v = *a;
    for (auto& e : v.elems) e = e.known() ? f(e, v.dtype) : e;
    return one(std::move(v));
  };
}

Elem neg(const Elem& e, DType t) {
  if (e.kind == K::Sym) return from_expr(e.sym->neg());
  if (e.kind == K::Int) return cast_elem(Elem::integer(int_op(Arith::Sub, 0, e.i, false)), t);
  return real_of(-e.f, t);
}
Elem abs_(const Elem& e, DType t) {
  if (e.kind == K::Sym) return Elem::unknown();
  if (e.kind == K::Int) return e.i < 0 ? neg(e, t) : e;
  return real_of(std::fabs(e.f), t);
}
// Floor/Ceil of an integer (symbolic or not) is itself.
Elem floor_(const Elem& e, DType t) { return e.kind == K::Float ? real_of(std::floor(e.f), t) : e; }
Elem ceil_(const Elem& e, DType t) { return e.kind == K::Float ? real_of(std::ceil(e.f), t) : e; }
Elem sqrt_(const Elem& e, DType t) { return e.kind == K::Sym ? Elem::unknown() : real_of(std::sqrt(as_double(e)), t); }
Elem reciprocal(const Elem& e, DType t) { return e.kind == K::Sym ? Elem::unknown() : real_of(1.0 / as_double(e), t); }

// Comparisons: -1 less, 0 equal, 1 greater; nullopt when undecidable (a symbolic difference).
std::optional<int> compare(const Elem& a, const Elem& b) {
  if (!a.known() || !b.known()) return std::nullopt;
  if (a.kind == K::Sym || b.kind == K::Sym) {
    auto x = as_expr(a), y = as_expr(b);
    if (!x || !y) return std::nullopt;
    auto d = x->sub(*y);
    if (!d || !d->is_constant()) return std::nullopt;
    return d->constant_term() < 0 ? -1 : d->constant_term() > 0 ? 1 : 0;
  }
  if (a.kind == K::Int && b.kind == K::Int) return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  const double x = as_double(a), y = as_double(b);
  if (std::isnan(x) || std::isnan(y)) return 2;  // unordered: every comparison but != is false
  return x < y ? -1 : x > y ? 1 : 0;
}

EvalFn comparison(std::function<bool(int)> test) {
  return [test](const EvalInput& in) {
    return broadcast_map(in, 2, DType::Bool, [&](const std::vector<const Elem*>& x) {
      auto c = compare(*x[0], *x[1]);
      return c ? Elem::integer(*c != 2 && test(*c)) : Elem::unknown();
    });
  };
}

bool truth(const Elem& e) { return e.kind == K::Int ? e.i != 0 : e.f != 0; }

EvalFn logic(std::function<bool(bool, bool)> f) {
  return [f](const EvalInput& in) {
    return broadcast_map(in, 2, DType::Bool, [&](const std::vector<const Elem*>& x) {
      if (!x[0]->concrete() || !x[1]->concrete()) return Elem::unknown();
      return Elem::integer(f(truth(*x[0]), truth(*x[1])));
    });
  };
}

Out not_(const EvalInput& in) {
  const ShapeValue* a = in.value(0);
  if (!a) return one(std::nullopt);
  ShapeValue v = *a;
  v.dtype = DType::Bool;
  for (auto& e : v.elems) e = e.concrete() ? Elem::integer(!truth(e)) : Elem::unknown();
  return one(std::move(v));
}

Out where(const EvalInput& in) {
  const ShapeValue* x = in.value(1);
  if (!x) return one(std::nullopt);
  return broadcast_map(in, 3, x->dtype, [](const std::vector<const Elem*>& a) {
    if (!a[0]->concrete()) return a[1]->known() && *a[1] == *a[2] ? *a[1] : Elem::unknown();
    return truth(*a[0]) ? *a[1] : *a[2];
  });
}

// ReduceSum/Prod/Min/Max: axes from the attribute, or (ReduceSum from 13, the others from 18) input 1.
EvalFn reduce(Arith op, int axes_input_opset) {
  return [op, axes_input_opset](const EvalInput& in) {
    const ShapeValue* x = in.value(0);
    if (!x) return one(std::nullopt);
    std::vector<int64_t> axes;
    if (in.node->opset >= axes_input_opset) {
      if (in.given(1)) {
        if (!in.value(1)) return one(std::nullopt);
        axes = int_list(*in.value(1), "axes");
      }
    } else {
      axes = in.node->attr_ints("axes");
    }
    if (axes.empty() && in.node->attr_i("noop_with_empty_axes", 0)) return one(*x);
    const size_t rank = x->dims.size();
    std::vector<bool> reduced(rank, axes.empty());
    for (auto a : axes) reduced[axis_of(a, rank, "reduce axis")] = true;
    const bool keep = in.node->attr_i("keepdims", 1) != 0;
    std::vector<int64_t> dims, kept_dims(rank);
    for (size_t a = 0; a < rank; ++a) {
      kept_dims[a] = reduced[a] ? 1 : x->dims[a];
      if (!reduced[a] || keep) dims.push_back(kept_dims[a]);
    }
    auto v = sized(x->dtype, dims);
    std::vector<bool> started(v->elems.size(), false);
    const auto in_strides = strides_of(x->dims), out_strides = strides_of(kept_dims);
    for (size_t i = 0; i < x->elems.size(); ++i) {
      int64_t o = 0;
      for (size_t a = 0; a < rank; ++a)
        if (!reduced[a]) o += static_cast<int64_t>(i) / in_strides[a] % x->dims[a] * out_strides[a];
      auto& acc = v->elems[static_cast<size_t>(o)];
      acc = started[static_cast<size_t>(o)] ? arith(op, acc, x->elems[i], x->dtype, false) : x->elems[i];
      started[static_cast<size_t>(o)] = true;
    }
    for (size_t o = 0; o < v->elems.size(); ++o)  // reductions over an empty set
      if (!started[o]) {
        if (op == Arith::Add) v->elems[o] = cast_elem(Elem::integer(0), x->dtype);
        else if (op == Arith::Mul) v->elems[o] = cast_elem(Elem::integer(1), x->dtype);
      }
    return one(std::move(v));
  };
}

}  // namespace
}  // namespace value_ops_math

void register_math_value_ops(ValueOpRegistry& r) {
  using namespace value_ops_math;
  r.add("Add", binary(Arith::Add));
  r.add("Sub", binary(Arith::Sub));
  r.add("Mul", binary(Arith::Mul));
  r.add("Div", binary(Arith::Div));
  r.add("Mod", binary(Arith::Mod));
  r.add("Pow", binary(Arith::Pow));
  r.add("Min", variadic(Arith::Min));
  r.add("Max", variadic(Arith::Max));
  r.add("Sum", variadic(Arith::Add));
  r.add("Neg", unary(neg));
  r.add("Abs", unary(abs_));
  r.add("Floor", unary(floor_));
  r.add("Ceil", unary(ceil_));
  r.add("Sqrt", unary(sqrt_));
  r.add("Reciprocal", unary(reciprocal));
  r.add("Equal", comparison([](int c) { return c == 0; }));
  r.add("Less", comparison([](int c) { return c < 0; }));
  r.add("LessOrEqual", comparison([](int c) { return c <= 0; }));
  r.add("Greater", comparison([](int c) { return c > 0; }));
  r.add("GreaterOrEqual", comparison([](int c) { return c >= 0; }));
  r.add("And", logic([](bool a, bool b) { return a && b; }));
  r.add("Or", logic([](bool a, bool b) { return a || b; }));
  r.add("Xor", logic([](bool a, bool b) { return a != b; }));
  r.add("Not", not_);
  r.add("Where", where);
  r.add("ReduceSum", reduce(Arith::Add, 13));
  r.add("ReduceProd", reduce(Arith::Mul, 18));
  r.add("ReduceMin", reduce(Arith::Min, 18));
  r.add("ReduceMax", reduce(Arith::Max, 18));
}

}  // namespace rooflens
