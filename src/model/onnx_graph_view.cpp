#include "model/onnx_graph_view.h"

#include <algorithm>
#include <unordered_set>

#include <onnx/onnx_pb.h>

#include "core/errors.h"
#include "model/mapped_file.h"
#include "model/skeleton_model.h"
#include "model/tensor.h"
#include "core/saturating.h"

namespace rooflens {

std::vector<int> topological_order(const onnx::GraphProto& g, const std::unordered_set<std::string>& available,
                                   const std::string& file);  // toposort.cpp

GraphView graph_view(const Model& model) {
  GraphView v;
  if (model.graphs.empty()) return v;
  const Graph& g = model.graphs[0];
  for (const auto& in : g.inputs) v.graph_inputs.insert(in);
  v.graph_outputs = g.outputs;
  for (const auto& n : g.nodes) {
    GraphView::Node node{n.name, n.op, n.domain, n.inputs, n.outputs, {}};
    for (const auto& a : n.attrs)
      if (a.kind == Attribute::Kind::String) node.attributes[a.name] = a.s;
    v.nodes.push_back(std::move(node));
  }
  return v;
}

namespace {

uint64_t tensor_proto_bytes(const onnx::TensorProto& t) {
  uint64_t elements = 1;
  for (const int64_t d : t.dims()) elements = sat_mul(elements, static_cast<uint64_t>(std::max<int64_t>(d, 0)));
  return (sat_mul(elements, static_cast<uint64_t>(dtype_bits(static_cast<DType>(t.data_type())))) + 7) / 8;
}

// A graph's constants in file order: its nodes (a Constant's value; a subgraph's constants at its node), then its
// initializers.
void constants_in_file_order(const onnx::GraphProto& g, std::vector<GraphView::Constant>& out, int depth = 0) {
  if (depth > 64) return;  // the loader refuses deeper nesting; a reader of structure only stops here
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.type() == onnx::AttributeProto::TENSOR && n.op_type() == "Constant" && n.output_size() > 0)
        out.push_back({n.output(0), tensor_proto_bytes(a.t())});
      else if (a.type() == onnx::AttributeProto::GRAPH)
        constants_in_file_order(a.g(), out, depth + 1);
      else if (a.type() == onnx::AttributeProto::GRAPHS)
        for (const auto& sub : a.graphs()) constants_in_file_order(sub, out, depth + 1);
    }
  for (const auto& t : g.initializer()) out.push_back({t.name(), tensor_proto_bytes(t)});
}

}  // namespace

GraphView read_graph_view(const std::string& path) {
  MappedFile file(path);
  Skeleton sk;
  const onnx::ModelProto m = skeleton_model(file.data(), file.size(), path, sk);
  const onnx::GraphProto& g = m.graph();
  GraphView v;
  std::unordered_set<std::string> available;
  for (const auto& t : g.initializer()) {
    available.insert(t.name());
    v.constant_bytes[t.name()] = tensor_proto_bytes(t);
  }
  constants_in_file_order(g, v.constants);
  for (const auto& in : g.input())
    if (!available.count(in.name())) {
      v.graph_inputs.insert(in.name());
      available.insert(in.name());
    }
  for (const auto& out : g.output()) v.graph_outputs.push_back(out.name());
  std::vector<int> order = topological_order(g, available, path);
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const onnx::NodeProto& n = g.node(order[pos]);
    GraphView::Node node;
    node.name = n.name().empty() ? n.op_type() + "_" + std::to_string(pos) : n.name();
    node.unnamed = n.name().empty();
    node.op = n.op_type();
    node.domain = n.domain() == "ai.onnx" ? "" : n.domain();
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    for (const auto& a : n.attribute())
      if (a.type() == onnx::AttributeProto::STRING) node.attributes[a.name()] = a.s();
    v.nodes.push_back(std::move(node));
  }
  return v;
}

}  // namespace rooflens
