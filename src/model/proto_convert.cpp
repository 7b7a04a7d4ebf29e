#include "model/proto_convert.h"

namespace rooflens {

TensorInfo tensor_info_of(const onnx::TypeProto& t) {
  TensorInfo info;
  switch (t.value_case()) {
    case onnx::TypeProto::kTensorType: break;
    case onnx::TypeProto::kSequenceType: info.kind = ValueKind::Sequence; return info;
    case onnx::TypeProto::kMapType: info.kind = ValueKind::Map; return info;
    case onnx::TypeProto::kOptionalType: info.kind = ValueKind::Optional; return info;
    case onnx::TypeProto::kSparseTensorType: info.kind = ValueKind::SparseTensor; return info;
    default: info.kind = ValueKind::Unknown; return info;
  }
  const auto& tt = t.tensor_type();
  info.dtype = static_cast<DType>(tt.elem_type());
  if (!tt.has_shape()) return info;
  info.has_rank = true;
  for (const auto& d : tt.shape().dim()) {
    Dim dim;
    if (d.has_dim_value() && d.dim_value() >= 0) dim.value = d.dim_value();
    else if (d.has_dim_param()) dim.symbol = d.dim_param();
    info.dims.push_back(dim);
  }
  return info;
}

onnx::TypeProto type_proto_of(const TensorInfo& t) {
  onnx::TypeProto tp;
  auto* tt = tp.mutable_tensor_type();
  tt->set_elem_type(static_cast<int32_t>(t.dtype));
  if (!t.has_rank) return tp;
  auto* shape = tt->mutable_shape();
  for (const auto& d : t.dims) {
    auto* dim = shape->add_dim();
    if (d.known()) dim->set_dim_value(d.value);
    else if (!d.symbol.empty()) dim->set_dim_param(d.symbol);
  }
  return tp;
}

namespace {
Attribute convert_attribute(const onnx::AttributeProto& a,
                            const std::function<int(const onnx::GraphProto&)>* graph_index) {
  using K = Attribute::Kind;
  Attribute out;
  out.name = a.name();
  switch (a.type()) {
    case onnx::AttributeProto::FLOAT: out.kind = K::Float; out.f = a.f(); break;
    case onnx::AttributeProto::INT: out.kind = K::Int; out.i = a.i(); break;
    case onnx::AttributeProto::STRING: out.kind = K::String; out.s = a.s(); break;
    case onnx::AttributeProto::FLOATS: out.kind = K::Floats; out.floats.assign(a.floats().begin(), a.floats().end()); break;
    case onnx::AttributeProto::INTS: out.kind = K::Ints; out.ints.assign(a.ints().begin(), a.ints().end()); break;
    case onnx::AttributeProto::STRINGS: out.kind = K::Strings; out.strings.assign(a.strings().begin(), a.strings().end()); break;
    case onnx::AttributeProto::TENSOR: {
      out.kind = K::Tensor;
      std::vector<int64_t> dims(a.t().dims().begin(), a.t().dims().end());
      out.tensor = make_tensor_info(static_cast<DType>(a.t().data_type()), dims);
      break;
    }
    case onnx::AttributeProto::GRAPH:
      out.kind = K::Graph;
      if (graph_index) out.graph = (*graph_index)(a.g());
      break;
    default: out.kind = K::Other; break;
  }
  return out;
}
}  // namespace

Node convert_node(const onnx::NodeProto& n, int opset,
                  const std::function<int(const onnx::GraphProto&)>* graph_index) {
  Node node;
  node.name = n.name();
  node.op = n.op_type();
  node.domain = n.domain() == "ai.onnx" ? "" : n.domain();
  node.opset = opset;
  node.inputs.assign(n.input().begin(), n.input().end());
  node.outputs.assign(n.output().begin(), n.output().end());
  for (const auto& a : n.attribute()) node.attrs.push_back(convert_attribute(a, graph_index));
  return node;
}

}  // namespace rooflens
