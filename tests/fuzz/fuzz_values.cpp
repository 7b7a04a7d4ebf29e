// Fuzz target (fuzz_targets.h) for the shape-value evaluator (model/value_eval.h), op by op: the bytes choose the ops, their
// attributes and inputs — any int64 (0, -1, INT64_MIN/MAX, 2^40 ...), floats (NaN, inf, 1e300), symbolic dims,
// shapes of any rank — and feed each op's outputs to later ops, so values flow through chains of shape arithmetic.
// Every op must end in values, "not computed" or an EvalError: never a crash, undefined behaviour, a hang, or a
// value larger than kMaxValueElements (the evaluator must not allocate what the bytes ask for).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_targets.h"
#include "model/value_eval.h"

namespace {

using namespace rooflens;

class Bytes {
 public:
  Bytes(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  bool empty() const { return n_ == 0; }
  uint8_t byte() {
    if (!n_) return 0;
    --n_;
    return *p_++;
  }
  int64_t integer() {
    static constexpr int64_t kSpecial[] = {0, 1, -1, 2, 3, 197, 768, INT64_MIN, INT64_MAX, int64_t{1} << 40,
                                           -(int64_t{1} << 40), int64_t{1} << 31, 16000, 8000, 65536, 65537};
    const uint8_t b = byte();
    if (b < 200) return static_cast<int64_t>(b % 16) - 4;
    if (b < 240) return kSpecial[b % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
    int64_t v = 0;
    for (int i = 0; i < 8; ++i) v = static_cast<int64_t>((static_cast<uint64_t>(v) << 8) | byte());
    return v;
  }
  double real() {
    static constexpr double kSpecial[] = {0.0, -0.0, 0.5, -1.5, 1e300, -1e300, 1e-310, 2.5, 9.2e18};
    const uint8_t b = byte();
    if (b < 128) return static_cast<double>(static_cast<int>(b % 32) - 8) / 2.0;
    if (b < 160) return b % 3 == 0 ? NAN : (b % 3 == 1 ? INFINITY : -INFINITY);
    return kSpecial[b % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
  }

 private:
  const uint8_t* p_;
  size_t n_;
};

constexpr DType kTypes[] = {DType::Int64, DType::Int32, DType::Float, DType::Bool, DType::UInt8, DType::Double,
                            DType::Float16, DType::Int8};

Elem element(Bytes& b, DType t) {
  const uint8_t kind = b.byte();
  if (kind % 11 == 0) return Elem::unknown();
  if (kind % 7 == 0) {  // a symbolic dim, or an expression of a few
    static const char* kNames[] = {"batch", "seq", "past", "N"};
    SymExpr e = SymExpr::symbol(kNames[b.byte() % 4]);
    if (auto m = e.mul(SymExpr::constant(b.integer()))) e = *m;
    if (auto a = e.add(SymExpr::symbol(kNames[b.byte() % 4]))) e = *a;
    return Elem::symbolic(e);
  }
  return dtype_is_float(t) ? cast_elem(Elem::real(b.real()), t) : cast_elem(Elem::integer(b.integer()), t);
}

ShapeValue value(Bytes& b) {
  ShapeValue v;
  v.dtype = kTypes[b.byte() % (sizeof(kTypes) / sizeof(kTypes[0]))];
  const int rank = b.byte() % 4;
  for (int i = 0; i < rank; ++i) v.dims.push_back(b.byte() % 5);
  const int64_t n = v.count();
  for (int64_t i = 0; i < n; ++i) v.elems.push_back(element(b, v.dtype));
  return v;
}

// The type of an input as shape inference would have it: the value's dims, or arbitrary dims (symbolic, unknown,
// huge) for ops that read only the type (Shape, Size).
TensorInfo type_of(Bytes& b, const ShapeValue* v) {
  if (v && b.byte() % 2) return make_tensor_info(v->dtype, v->dims);
  TensorInfo t;
  t.dtype = DType::Float;
  t.has_rank = b.byte() % 8 != 0;
  const int rank = b.byte() % 6;
  for (int i = 0; t.has_rank && i < rank; ++i) {
    const uint8_t k = b.byte();
    t.dims.push_back(k % 3 == 0 ? Dim{-1, "batch"} : k % 3 == 1 ? Dim{} : Dim{std::abs(b.integer() % (int64_t{1} << 40)), {}});
  }
  return t;
}

Attribute int_attr(const char* name, int64_t v) {
  Attribute a;
  a.name = name;
  a.kind = Attribute::Kind::Int;
  a.i = v;
  return a;
}

Attribute ints_attr(const char* name, Bytes& b) {
  Attribute a;
  a.name = name;
  a.kind = Attribute::Kind::Ints;
  const int n = b.byte() % 5;
  for (int i = 0; i < n; ++i) a.ints.push_back(b.integer());
  return a;
}

}  // namespace

int rooflens::fuzz::values(const uint8_t* data, size_t size) {
  static const ValueOpRegistry& registry = ValueOpRegistry::builtin();
  static const std::vector<std::string> ops = registry.ops();
  Bytes b(data, size);
  std::vector<ShapeValue> pool;
  for (int i = 0, n = 1 + b.byte() % 4; i < n; ++i) pool.push_back(value(b));
  SymTable syms;
  for (int step = 0; step < 24 && !b.empty(); ++step) {
    Node node;
    node.op = ops[b.byte() % ops.size()];
    node.opset = 1 + b.byte() % 21;
    static const char* kInts[] = {"axis", "keepdims", "to", "start", "end", "fmod", "allowzero", "noop_with_empty_axes"};
    static const char* kLists[] = {"axes", "perm", "starts", "ends", "split", "shape", "value_ints"};
    for (int i = 0, n = b.byte() % 4; i < n; ++i) {
      const char* name = kInts[b.byte() % 8];
      node.attrs.push_back(int_attr(name, std::string(name) == "to" ? static_cast<int64_t>(kTypes[b.byte() % 8]) : b.integer()));
    }
    if (b.byte() % 2) node.attrs.push_back(ints_attr(kLists[b.byte() % 7], b));
    EvalInput in;
    in.node = &node;
    in.syms = &syms;
    std::vector<TensorInfo> types;
    std::vector<const ShapeValue*> values;
    const int inputs = b.byte() % 5;
    types.reserve(inputs);
    for (int i = 0; i < inputs; ++i) {
      const uint8_t pick = b.byte();
      const ShapeValue* v = pick % 9 == 0 ? nullptr : &pool[pick % pool.size()];
      node.inputs.push_back(pick % 13 == 0 ? "" : "in" + std::to_string(i));
      values.push_back(v);
      types.push_back(type_of(b, v));
    }
    for (int i = 0; i < inputs; ++i) {
      in.values.push_back(values[static_cast<size_t>(i)]);
      in.types.push_back(&types[static_cast<size_t>(i)]);
    }
    if (b.byte() % 3 == 0) in.attr_values.emplace_back("value", pool[b.byte() % pool.size()]);
    const int outputs = 1 + b.byte() % 3;
    for (int i = 0; i < outputs; ++i) node.outputs.push_back("out" + std::to_string(i));
    EvalOutputs out;
    try {
      out = (*registry.find("", node.op))(in);
    } catch (const EvalError&) {
      continue;
    }
    for (auto& v : out) {
      if (!v) continue;
      const auto n = bounded_count(v->dims);
      if (!n || static_cast<size_t>(*n) != v->elems.size()) __builtin_trap();  // unbounded or inconsistent value
      if (pool.size() < 16) pool.push_back(std::move(*v));
      else pool[b.byte() % pool.size()] = std::move(*v);
    }
  }
  return 0;
}
