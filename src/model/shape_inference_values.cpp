// The shape inference's side of the evaluator: values into the inference (initializers, Constant nodes, --value
// inputs), evaluation of each node, and values out again — as TensorProtos for libonnx's inference functions
// (Reshape, Expand, Resize, Pad ... read their shape inputs from there) and as dims of the node's outputs.
#include <cmath>
#include <cstring>
#include <deque>

#include "core/errors.h"
#include "core/tensor_value.h"
#include "model/proto_convert.h"
#include "model/shape_inference.h"

namespace rooflens {
namespace {

// Stored tensors are decoded only up to this many elements: shape constants are tiny, while a Constant node may
// hold a whole weight matrix (paddle2onnx exports do) that no shape computation reads.
constexpr int64_t kMaxDecodedElements = 4096;

template <typename T>
T read_raw(const std::string& raw, size_t i) {
  T v;
  std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
  return v;
}

// Element i of a tensor's data as a value element, for the storage its type uses.
struct Decoder {
  const onnx::TensorProto& t;
  size_t width = 0;  // bytes per element in raw_data

  Elem at(size_t i) const {
    const bool raw = t.has_raw_data();
    const std::string& r = t.raw_data();
    switch (t.data_type()) {
      case onnx::TensorProto::FLOAT: return Elem::real(raw ? read_raw<float>(r, i) : t.float_data(static_cast<int>(i)));
      case onnx::TensorProto::DOUBLE: return Elem::real(raw ? read_raw<double>(r, i) : t.double_data(static_cast<int>(i)));
      case onnx::TensorProto::FLOAT16:
        return Elem::real(float16_to_float(raw ? read_raw<uint16_t>(r, i) : static_cast<uint16_t>(t.int32_data(static_cast<int>(i)))));
      case onnx::TensorProto::BFLOAT16: {
        uint32_t bits = (raw ? read_raw<uint16_t>(r, i) : static_cast<uint16_t>(t.int32_data(static_cast<int>(i))));
        bits <<= 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return Elem::real(f);
      }
      case onnx::TensorProto::INT64: return Elem::integer(raw ? read_raw<int64_t>(r, i) : t.int64_data(static_cast<int>(i)));
      case onnx::TensorProto::UINT64: case onnx::TensorProto::UINT32:
        if (raw) return Elem::integer(width == 8 ? static_cast<int64_t>(read_raw<uint64_t>(r, i)) : read_raw<uint32_t>(r, i));
        return Elem::integer(static_cast<int64_t>(t.uint64_data(static_cast<int>(i))));
      default: break;
    }
    if (!raw) return cast_elem(Elem::integer(t.int32_data(static_cast<int>(i))), static_cast<DType>(t.data_type()));
    switch (width) {
      case 1: return cast_elem(Elem::integer(read_raw<uint8_t>(r, i)), static_cast<DType>(t.data_type()));
      case 2: return cast_elem(Elem::integer(read_raw<uint16_t>(r, i)), static_cast<DType>(t.data_type()));
      default: return cast_elem(Elem::integer(read_raw<uint32_t>(r, i)), static_cast<DType>(t.data_type()));
    }
  }
};

// Elements the typed field of t holds (raw_data aside).
int64_t typed_count(const onnx::TensorProto& t) {
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT: return t.float_data_size();
    case onnx::TensorProto::DOUBLE: return t.double_data_size();
    case onnx::TensorProto::INT64: return t.int64_data_size();
    case onnx::TensorProto::UINT64: case onnx::TensorProto::UINT32: return t.uint64_data_size();
    default: return t.int32_data_size();
  }
}

// A concrete value as a TensorProto libonnx can read (int64/int32/float/double and the small integer types).
std::optional<onnx::TensorProto> tensor_of_value(const ShapeValue& v) {
  onnx::TensorProto t;
  t.set_data_type(static_cast<int32_t>(v.dtype));
  for (auto d : v.dims) t.add_dims(d);
  for (const auto& e : v.elems) {
    switch (v.dtype) {
      case DType::Float: t.add_float_data(static_cast<float>(e.kind == Elem::Kind::Int ? static_cast<double>(e.i) : e.f)); break;
      case DType::Double: t.add_double_data(e.kind == Elem::Kind::Int ? static_cast<double>(e.i) : e.f); break;
      case DType::Int64: t.add_int64_data(e.i); break;
      case DType::UInt64: case DType::UInt32: t.add_uint64_data(static_cast<uint64_t>(e.i)); break;
      case DType::Int32: case DType::Int16: case DType::Int8: case DType::UInt16: case DType::UInt8: case DType::Bool:
        t.add_int32_data(static_cast<int32_t>(e.i));
        break;
      default: return std::nullopt;
    }
  }
  return t;
}

}  // namespace

std::optional<ShapeValue> value_of_tensor(const onnx::TensorProto& t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
  const auto type = static_cast<DType>(t.data_type());
  const int bits = dtype_bits(type);
  if (bits < 8 || type == DType::String || type == DType::Complex64 || type == DType::Complex128) return std::nullopt;
  if (static_cast<int>(type) >= static_cast<int>(DType::Float8E4M3FN)) return std::nullopt;
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  auto n = bounded_count(dims);
  if (!n || *n > kMaxDecodedElements) return std::nullopt;
  Decoder dec{t, static_cast<size_t>(bits / 8)};
  if (t.has_raw_data() ? t.raw_data().size() != static_cast<size_t>(*n) * dec.width : typed_count(t) != *n)
    return std::nullopt;  // no data here (a stripped payload) or inconsistent data
  ShapeValue v;
  v.dtype = type;
  v.dims = std::move(dims);
  v.elems.reserve(static_cast<size_t>(*n));
  for (int64_t i = 0; i < *n; ++i) v.elems.push_back(dec.at(static_cast<size_t>(i)));
  return v;
}

void ShapeInference::seed_initializer(const onnx::TensorProto& t, Scope& scope) {
  const bool inline_data = t.has_raw_data() || typed_count(t) > 0 || t.string_data_size() > 0;
  if (inline_data && t.data_location() != onnx::TensorProto::EXTERNAL) scope.data[t.name()] = &t;
  if (auto v = value_of_tensor(t)) scope.values[t.name()] = std::make_shared<const ShapeValue>(std::move(*v));
}

void ShapeInference::seed_input_value(const std::string& name, const std::vector<double>& given, const onnx::TypeProto& type,
                              Scope& scope) {
  const TensorInfo info = tensor_info_of(type);
  if (!info.fully_known() || info.elements() != static_cast<int64_t>(given.size())) return;  // checked by the overrides
  ShapeValue v;
  v.dtype = info.dtype;
  v.dims = info.values();
  for (double d : given) v.elems.push_back(cast_elem(Elem::real(d), info.dtype));  // out of range: unknown
  scope.values[name] = std::make_shared<const ShapeValue>(std::move(v));
  if (auto t = tensor_of_value(*scope.values[name])) scope.data[name] = keep(std::move(*t));
}

onnx::TypeProto ShapeInference::type_of_value(const ShapeValue& v) {
  onnx::TypeProto tp;
  auto* tt = tp.mutable_tensor_type();
  tt->set_elem_type(static_cast<int32_t>(v.dtype));
  auto* shape = tt->mutable_shape();
  for (auto d : v.dims) shape->add_dim()->set_dim_value(d);
  return tp;
}

std::string ShapeInference::symbol_for(const SymExpr& e) {
  std::string text = e.to_string();
  syms_.emplace(text, e);
  return text;
}

void ShapeInference::publish(const std::string& name, const ValuePtr& v, Scope& scope, bool to_data) {
  scope.values[name] = v;
  if (!to_data) return;
  scope.data.erase(name);
  generated_.erase(name);
  if (v->concrete()) {
    if (auto t = tensor_of_value(*v)) scope.data[name] = keep(std::move(*t));
    return;
  }
  // A partly symbolic 1-D integer value ([batch, 197, 768]) is what libonnx calls shape data.
  if (v->dims.size() != 1 || !dtype_is_integral(v->dtype)) return;
  onnx::TensorShapeProto sp;
  for (const auto& e : v->elems) {
    auto* d = sp.add_dim();
    if (e.kind == Elem::Kind::Int) d->set_dim_value(e.i);
    else if (e.kind == Elem::Kind::Sym) d->set_dim_param(symbol_for(*e.sym));
  }
  generated_[name] = sp;
}

std::vector<ValuePtr> ShapeInference::evaluate(const onnx::NodeProto& n, const Node& node, const Scope& scope,
                                       const std::vector<onnx::TypeProto>& outs) {
  std::vector<ValuePtr> result(n.output_size());
  const EvalFn* fn = values_registry_.find(node.domain, node.op);
  if (!fn) return result;
  EvalInput in;
  in.node = &node;
  in.syms = &syms_;
  std::deque<TensorInfo> infos;
  bool any_input = false, any_value = false;
  for (const auto& name : n.input()) {
    auto v = name.empty() ? scope.values.end() : scope.values.find(name);
    in.values.push_back(v == scope.values.end() ? nullptr : v->second.get());
    any_input |= !name.empty();
    any_value |= in.values.back() != nullptr;
    auto t = name.empty() ? scope.types.end() : scope.types.find(name);
    if (t == scope.types.end()) {
      in.types.push_back(nullptr);
    } else {
      infos.push_back(tensor_info_of(*t->second));
      in.types.push_back(&infos.back());
    }
  }
  // Most nodes compute on activations: nothing to evaluate unless an input's contents are known (Shape and Size
  // read only their input's type).
  if (any_input && !any_value && node.op != "Shape" && node.op != "Size") return result;
  for (const auto& a : n.attribute())
    if (a.type() == onnx::AttributeProto::TENSOR)
      if (auto v = value_of_tensor(a.t())) in.attr_values.emplace_back(a.name(), std::move(*v));
  for (const auto& o : outs)
    in.out_dtypes.push_back(o.has_tensor_type() ? static_cast<DType>(o.tensor_type().elem_type()) : DType::Undefined);
  EvalOutputs values;
  try {
    values = (*fn)(in);
  } catch (const std::exception& e) {
    if (!silent_)
      result_.notes.push_back("value not computed at node '" + n.name() + "' (" + n.op_type() + "): " + e.what());
    return result;
  }
  for (size_t i = 0; i < values.size() && i < result.size(); ++i) {
    if (!values[i] || static_cast<int64_t>(values[i]->elems.size()) != values[i]->count()) continue;
    result[i] = std::make_shared<const ShapeValue>(std::move(*values[i]));
  }
  return result;
}

}  // namespace rooflens
