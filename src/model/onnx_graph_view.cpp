#include "model/onnx_graph_view.h"

#include <algorithm>
#include <unordered_set>

#include <onnx/onnx_pb.h>

#include "core/errors.h"
#include "model/mapped_file.h"
#include "model/skeleton.h"
#include "model/tensor.h"
#include "model/wire.h"
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

GraphView read_graph_view(const std::string& path) {
  MappedFile file(path);
  Skeleton sk;
  try {
    sk = build_skeleton(file.data(), file.size());
  } catch (const WireError& e) {
    throw UserError(path + ": not a valid ONNX model (" + e.what() + ")");
  }
  onnx::ModelProto m;
  if (!m.ParseFromString(sk.bytes) || !m.has_graph()) throw UserError(path + ": not a valid ONNX model");
  const onnx::GraphProto& g = m.graph();
  GraphView v;
  std::unordered_set<std::string> available;
  for (const auto& t : g.initializer()) {
    available.insert(t.name());
    uint64_t elements = 1;
    for (const int64_t d : t.dims()) elements = sat_mul(elements, static_cast<uint64_t>(std::max<int64_t>(d, 0)));
    v.constant_bytes[t.name()] = (sat_mul(elements, static_cast<uint64_t>(dtype_bits(static_cast<DType>(t.data_type())))) + 7) / 8;
  }
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
