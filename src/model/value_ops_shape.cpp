// Value functions of the ops that make values from shapes and constants: Shape, Size, Constant,
// ConstantOfShape, Identity, Cast, Range, NonZero, Expand, Tile. Index/layout ops are in value_ops_layout.cpp.
#include <cmath>

#include "model/value_eval.h"

namespace rooflens {

namespace value_ops_shape {  // this table's Row, kRows and helpers: another table's are spelled the same
using namespace value_util;
namespace {

using Out = EvalOutputs;

Out one(std::optional<ShapeValue> v) {
  Out o;
  o.push_back(std::move(v));
  return o;
}

// Shape (start/end since opset 15): the input's dims as an int64 vector.
Out shape(const EvalInput& in) {
  const TensorInfo* t = in.type(0);
  if (!t || !t->has_rank) return one(std::nullopt);
  const auto rank = static_cast<int64_t>(t->dims.size());
  auto clamp = [rank](int64_t v) { return v < 0 ? std::max<int64_t>(v + rank, 0) : std::min(v, rank); };
  const int64_t start = clamp(in.node->attr_i("start", 0));
  const int64_t end = clamp(in.node->attr_i("end", rank));
  auto v = sized(DType::Int64, {std::max<int64_t>(end - start, 0)});
  if (!v) return one(std::nullopt);
  for (int64_t i = start; i < end; ++i) v->elems[static_cast<size_t>(i - start)] = elem_of_dim(t->dims[static_cast<size_t>(i)], in.syms);
  return one(std::move(v));
}

// Size: the product of the input's dims as an int64 scalar (symbolic when some dims are).
Out size(const EvalInput& in) {
  const TensorInfo* t = in.type(0);
  if (!t || !t->has_rank) return one(std::nullopt);
  SymExpr product = SymExpr::constant(1);
  auto v = sized(DType::Int64, {});
  for (const auto& d : t->dims) {
    Elem e = elem_of_dim(d, in.syms);
    if (!e.known()) return one(std::move(v));  // one unknown element
    auto p = product.mul(e.kind == Elem::Kind::Int ? SymExpr::constant(e.i) : *e.sym);
    if (!p) return one(std::move(v));
    product = *p;
  }
  v->elems[0] = Elem::symbolic(product);
  return one(std::move(v));
}

Out constant(const EvalInput& in) {
  if (const ShapeValue* v = in.attr_value("value")) return one(*v);
  const Node& n = *in.node;
  if (const Attribute* a = n.attr("value_int"); a && a->kind == Attribute::Kind::Int) {
    auto v = sized(DType::Int64, {});
    v->elems[0] = Elem::integer(a->i);
    return one(std::move(v));
  }
  if (const Attribute* a = n.attr("value_float"); a && a->kind == Attribute::Kind::Float) {
    auto v = sized(DType::Float, {});
    v->elems[0] = Elem::real(a->f);
    return one(std::move(v));
  }
  if (const Attribute* a = n.attr("value_ints"); a && a->kind == Attribute::Kind::Ints) {
    auto v = sized(DType::Int64, {static_cast<int64_t>(a->ints.size())});
    if (!v) return one(std::nullopt);
    for (size_t i = 0; i < a->ints.size(); ++i) v->elems[i] = Elem::integer(a->ints[i]);
    return one(std::move(v));
  }
  if (const Attribute* a = n.attr("value_floats"); a && a->kind == Attribute::Kind::Floats) {
    auto v = sized(DType::Float, {static_cast<int64_t>(a->floats.size())});
    if (!v) return one(std::nullopt);
    for (size_t i = 0; i < a->floats.size(); ++i) v->elems[i] = Elem::real(a->floats[i]);
    return one(std::move(v));
  }
  return one(std::nullopt);
}

// ConstantOfShape: a tensor of the given shape filled with `value` (default float 0).
Out constant_of_shape(const EvalInput& in) {
  const ShapeValue* shape = in.value(0);
  if (!shape) return one(std::nullopt);
  auto dims = shape->ints();
  if (!dims) return one(std::nullopt);
  for (auto d : *dims)
    if (d < 0) throw EvalError("negative dim " + std::to_string(d) + " in the shape");
  const ShapeValue* fill = in.attr_value("value");
  Elem e = fill && fill->elems.size() == 1 ? fill->elems[0] : Elem::real(0);
  auto v = sized(fill ? fill->dtype : DType::Float, *dims);
  if (!v) return one(std::nullopt);  // bigger than any shape computation needs: the shape alone is known
  std::fill(v->elems.begin(), v->elems.end(), e);
  return one(std::move(v));
}

Out identity(const EvalInput& in) { return one(in.value(0) ? std::optional<ShapeValue>(*in.value(0)) : std::nullopt); }

ShapeValue cast_to(const ShapeValue& x, DType to) {
  ShapeValue v = x;
  v.dtype = to;
  for (auto& e : v.elems) e = cast_elem(e, to);
  return v;
}

Out cast(const EvalInput& in) {
  const ShapeValue* x = in.value(0);
  if (!x) return one(std::nullopt);
  auto to = static_cast<DType>(in.node->attr_i("to", 0));
  if (dtype_bits(to) == 0) return one(std::nullopt);  // string or unknown target
  return one(cast_to(*x, to));
}

Out cast_like(const EvalInput& in) {
  const ShapeValue* x = in.value(0);
  const TensorInfo* like = in.type(1);
  if (!x || !like || dtype_bits(like->dtype) == 0) return one(std::nullopt);
  return one(cast_to(*x, like->dtype));
}

// Range(start, limit, delta): max(ceil((limit - start) / delta), 0) elements; the count is checked against the
// cap before anything is allocated (a Range of 2^40 elements stays uncomputed).
Out range(const EvalInput& in) {
  const ShapeValue *s = in.value(0), *l = in.value(1), *d = in.value(2);
  if (!s || !l || !d || s->elems.size() != 1 || l->elems.size() != 1 || d->elems.size() != 1) return one(std::nullopt);
  const Elem &es = s->elems[0], &el = l->elems[0], &ed = d->elems[0];
  if (!es.concrete() || !el.concrete() || !ed.concrete()) return one(std::nullopt);
  const DType t = s->dtype;
  if (dtype_is_integral(t)) {
    if (es.kind != Elem::Kind::Int || el.kind != Elem::Kind::Int || ed.kind != Elem::Kind::Int) return one(std::nullopt);
    if (ed.i == 0) throw EvalError("Range with delta 0");
    const __int128 span = static_cast<__int128>(el.i) - es.i;
    __int128 n = span / ed.i + ((span % ed.i) != 0 && ((span > 0) == (ed.i > 0)) ? 1 : 0);
    if (n < 0) n = 0;
    if (n > kMaxValueElements) return one(std::nullopt);
    auto v = sized(t, {static_cast<int64_t>(n)});
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) v->elems[static_cast<size_t>(i)] = Elem::integer(es.i + i * ed.i);
    return one(std::move(v));
  }
  auto as_double = [](const Elem& e) { return e.kind == Elem::Kind::Int ? static_cast<double>(e.i) : e.f; };
  const double start = as_double(es), limit = as_double(el), delta = as_double(ed);
  if (delta == 0) throw EvalError("Range with delta 0");
  const double count = std::ceil((limit - start) / delta);
  if (!std::isfinite(count)) throw EvalError("Range with a non-finite element count");
  const double n = std::max(count, 0.0);
  if (n > static_cast<double>(kMaxValueElements)) return one(std::nullopt);
  auto v = sized(t, {static_cast<int64_t>(n)});
  for (size_t i = 0; i < v->elems.size(); ++i) v->elems[i] = cast_elem(Elem::real(start + static_cast<double>(i) * delta), t);
  return one(std::move(v));
}

// NonZero of a known (constant) tensor: [rank, count] indices of its non-zero elements.
Out non_zero(const EvalInput& in) {
  const ShapeValue* x = in.value(0);
  if (!x || !x->concrete()) return one(std::nullopt);
  std::vector<int64_t> hits;
  for (size_t i = 0; i < x->elems.size(); ++i) {
    const Elem& e = x->elems[i];
    if (e.kind == Elem::Kind::Int ? e.i != 0 : e.f != 0) hits.push_back(static_cast<int64_t>(i));
  }
  const size_t rank = x->dims.size();
  auto v = sized(DType::Int64, {static_cast<int64_t>(rank), static_cast<int64_t>(hits.size())});
  if (!v) return one(std::nullopt);
  const auto strides = strides_of(x->dims);
  for (size_t h = 0; h < hits.size(); ++h)
    for (size_t a = 0; a < rank; ++a)
      v->elems[a * hits.size() + h] = Elem::integer(hits[h] / strides[a] % x->dims[a]);
  return one(std::move(v));
}

// Expand(x, shape): numpy broadcast of x against shape.
Out expand(const EvalInput& in) {
  const ShapeValue *x = in.value(0), *shape = in.value(1);
  if (!x || !shape) return one(std::nullopt);
  auto target = int_list(*shape, "Expand's shape");
  for (auto d : target)
    if (d < 0) throw EvalError("negative dim " + std::to_string(d) + " in Expand's shape");
  auto dims = broadcast_dims(x->dims, target);
  if (!dims) return one(std::nullopt);
  auto v = sized(x->dtype, *dims);
  for (size_t i = 0; i < v->elems.size(); ++i)
    v->elems[i] = x->elems[static_cast<size_t>(broadcast_index(static_cast<int64_t>(i), *dims, x->dims))];
  return one(std::move(v));
}

// Tile(x, repeats): dims multiplied by repeats.
Out tile(const EvalInput& in) {
  const ShapeValue *x = in.value(0), *reps = in.value(1);
  if (!x || !reps) return one(std::nullopt);
  auto r = int_list(*reps, "Tile's repeats");
  if (r.size() != x->dims.size()) throw EvalError("Tile's repeats do not match the input's rank");
  std::vector<int64_t> dims(r.size());
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] < 0) throw EvalError("negative repeat " + std::to_string(r[i]));
    if (__builtin_mul_overflow(x->dims[i], r[i], &dims[i])) return one(std::nullopt);
  }
  auto v = sized(x->dtype, dims);
  if (!v) return one(std::nullopt);
  const auto out_strides = strides_of(dims), in_strides = strides_of(x->dims);
  for (size_t i = 0; i < v->elems.size(); ++i) {
    int64_t src = 0;
    for (size_t a = 0; a < dims.size(); ++a)
      src += (static_cast<int64_t>(i) / out_strides[a] % dims[a] % x->dims[a]) * in_strides[a];
    v->elems[i] = x->elems[static_cast<size_t>(src)];
  }
  return one(std::move(v));
}

}  // namespace
}  // namespace value_ops_shape

void register_layout_value_ops(ValueOpRegistry& r);  // value_ops_layout.cpp

void register_shape_value_ops(ValueOpRegistry& r) {
  using namespace value_ops_shape;
  r.add("Shape", shape);
  r.add("Size", size);
  r.add("Constant", constant);
  r.add("ConstantOfShape", constant_of_shape);
  r.add("Identity", identity);
  r.add("Cast", cast);
  r.add("CastLike", cast_like);
  r.add("Range", range);
  r.add("NonZero", non_zero);
  r.add("Expand", expand);
  r.add("Tile", tile);
  register_layout_value_ops(r);
}

}  // namespace rooflens
