#include "model/loader.h"

#include <filesystem>
#include <unordered_map>

#include <onnx/onnx_pb.h>

#include "core/errors.h"
#include "core/saturating.h"
#include "model/external_data.h"
#include "model/mapped_file.h"
#include "model/proto_convert.h"
#include "model/proto_shapes.h"
#include "model/skeleton_model.h"
#include "model/wire.h"

namespace rooflens {

namespace {

// The skeleton's model (model/skeleton_model.h), held to what rooflens' own loading needs besides.
onnx::ModelProto parse_skeleton(const uint8_t* data, size_t size, const std::string& name, Skeleton& sk) {
  onnx::ModelProto m = skeleton_model(data, size, name, sk);
  if (m.ir_version() <= 0) throw UserError(name + ": not an ONNX model (no ir_version) — is this really a .onnx file?");
  if (m.opset_import_size() == 0 && m.ir_version() >= 3)
    throw UserError(name + ": the model imports no opset — re-export it with an opset_import entry");
  return m;
}

// Inline data must agree with dims and type: libonnx 1.12 copies raw_data into a buffer sized from the
// dims without checking (a heap overflow our fuzzer found), so inconsistent tensors never reach it.
void check_inline_data(const onnx::TensorProto& t, uint64_t elements, const std::string& what) {
  const int bits = dtype_bits(static_cast<DType>(t.data_type()));
  if (t.has_raw_data() && bits > 0) {
    uint64_t expected = (sat_mul(elements, static_cast<uint64_t>(bits)) + 7) / 8;
    if (t.raw_data().size() != expected)
      throw UserError(what + " holds " + std::to_string(t.raw_data().size()) + " bytes but its dims and type need " +
                      std::to_string(expected) + "; the file is corrupted");
    return;
  }
  const uint64_t typed = static_cast<uint64_t>(t.float_data_size()) + t.int32_data_size() + t.int64_data_size() +
                         t.double_data_size() + t.uint64_data_size() + t.string_data_size();
  const bool complex = t.data_type() == onnx::TensorProto::COMPLEX64 || t.data_type() == onnx::TensorProto::COMPLEX128;
  const uint64_t packed = (bits == 4)  // int4/uint4 pack two values per int32_data entry
                              ? (elements + 1) / 2 : elements;
  if (typed != 0 && typed != (complex ? sat_mul(elements, 2) : packed))
    throw UserError(what + " holds " + std::to_string(typed) + " values but its dims need " +
                    std::to_string(elements) + "; the file is corrupted");
}

void check_tensor(const onnx::TensorProto& t, const std::string& what, const std::string& name,
                  const std::string& dir) {
  uint64_t n = 1;
  for (auto d : t.dims()) {
    if (d < 0) throw UserError(what + " has a negative dim; the file is corrupted");
    n = sat_mul(n, static_cast<uint64_t>(d));
  }
  if (n > (uint64_t{1} << 48))
    throw UserError(what + " claims " + std::to_string(n) + " elements, more than any real weight; the file is corrupted");
  if (t.data_location() == onnx::TensorProto::EXTERNAL) resolve_external_data(t, name, dir);
  else check_inline_data(t, n, what);
}

// Validates every tensor (initializers and Constant-style attribute tensors: dims sane, inline data consistent,
// external data inside the model directory) in g and its subgraphs.
void check_initializers(const onnx::GraphProto& g, const std::string& name, const std::string& dir, int depth) {
  if (depth > 32) throw UserError(name + ": subgraphs nested deeper than 32 levels");
  for (const auto& t : g.initializer()) check_tensor(t, name + ": initializer '" + t.name() + "'", name, dir);
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      const std::string what = name + ": node '" + (n.name().empty() ? n.op_type() : n.name()) + "' attribute '" +
                               a.name() + "'";
      if (a.has_t()) check_tensor(a.t(), what, name, dir);
      for (const auto& t : a.tensors()) check_tensor(t, what, name, dir);
      if (a.has_g()) check_initializers(a.g(), name, dir, depth + 1);
      for (const auto& sg : a.graphs()) check_initializers(sg, name, dir, depth + 1);
    }
}

class ModelBuilder {
 public:
  ModelBuilder(const onnx::ModelProto& m, const ShapeResult& shapes,
               const std::unordered_map<const onnx::GraphProto*, std::vector<int>>& order, const Skeleton& sk,
               const std::string& name, const std::string& dir)
      : m_(m), shapes_(shapes), order_(order), name_(name), dir_(dir) {
    for (const auto& p : sk.payloads) spans_.emplace(p.tensor_name, &p);
  }

  Model build() {
    Model model;
    model.ir_version = m_.ir_version();
    model.producer_name = m_.producer_name();
    model.producer_version = m_.producer_version();
    model.graph_name = m_.graph().name();
    for (const auto& op : m_.opset_import())
      model.opsets[op.domain() == "ai.onnx" ? "" : op.domain()] = static_cast<int>(op.version());
    model.notes = shapes_.notes;
    model.input_symbols = shapes_.input_symbols;
    model.batch_dims = shapes_.batch_dims;
    collect(m_.graph(), -1, -1, "main", model);
    for (size_t i = 0; i < protos_.size(); ++i) fill(i, model);
    return model;
  }

 private:
  // Assigns graph indices depth-first, bodies right after the node that owns them.
  void collect(const onnx::GraphProto& g, int parent, int parent_node, const std::string& path, Model& model,
               const std::string& attribute = "") {
    int index = static_cast<int>(protos_.size());
    protos_.push_back(&g);
    index_[&g] = index;
    Graph graph;
    graph.name = g.name();
    graph.parent_graph = parent;
    graph.parent_node = parent_node;
    graph.path = path;
    graph.attribute = attribute;
    if (auto it = shapes_.bodies.find(&g); it != shapes_.bodies.end()) {
      graph.run = it->second.run;
      graph.trips = it->second.trips;
    }
    model.graphs.push_back(std::move(graph));
    const auto& ord = order_.at(&g);
    for (size_t pos = 0; pos < ord.size(); ++pos) {
      const auto& n = g.node(ord[pos]);
      for (const auto& a : n.attribute()) {
        std::string base = path + "/" + node_name(n, static_cast<int>(pos)) + ":" + a.name();
        if (a.has_g()) collect(a.g(), index, static_cast<int>(pos), base, model, a.name());
        for (int k = 0; k < a.graphs_size(); ++k)
          collect(a.graphs(k), index, static_cast<int>(pos), base + "[" + std::to_string(k) + "]", model, a.name());
      }
    }
  }

  static std::string node_name(const onnx::NodeProto& n, int pos) {
    return n.name().empty() ? n.op_type() + "_" + std::to_string(pos) : n.name();
  }

  void fill(size_t gi, Model& model) {
    const onnx::GraphProto& g = *protos_[gi];
    Graph& graph = model.graphs[gi];
    if (auto it = shapes_.types.find(&g); it != shapes_.types.end())
      for (const auto& [name, tp] : it->second) graph.tensors.emplace(name, tensor_info_of(tp));
    for (const auto& t : g.initializer()) {
      graph.initializers[t.name()] = static_cast<int>(model.initializers.size());
      model.initializers.push_back(initializer(t));
    }
    for (const auto& in : g.input())
      if (!graph.initializers.count(in.name())) graph.inputs.push_back(in.name());
    for (const auto& out : g.output()) graph.outputs.push_back(out.name());
    std::function<int(const onnx::GraphProto&)> index_of = [this](const onnx::GraphProto& sg) {
      auto it = index_.find(&sg);
      return it == index_.end() ? -1 : it->second;
    };
    const auto& ord = order_.at(&g);
    for (size_t pos = 0; pos < ord.size(); ++pos) {
      const auto& n = g.node(ord[pos]);
      auto opset = model.opsets.find(n.domain() == "ai.onnx" ? "" : n.domain());
      Node node = convert_node(n, opset == model.opsets.end() ? 1 : opset->second, &index_of);
      node.name = node_name(n, static_cast<int>(pos));
      add_constant_tensor(n, node.name, graph, model);
      graph.nodes.push_back(std::move(node));
    }
  }

  // A Constant node's `value` tensor is stored in the file like an initializer (paddle2onnx and spox exports keep
  // every weight so): it is listed with the initializers, so it counts as parameters and weights the same way.
  // A single element is an operand (Clip's 6, a Pow exponent, an attention scale), not a weight: left out.
  void add_constant_tensor(const onnx::NodeProto& n, const std::string& node_name, Graph& graph, Model& model) {
    if (n.op_type() != "Constant" || !(n.domain().empty() || n.domain() == "ai.onnx") || n.output_size() != 1 ||
        n.output(0).empty())
      return;
    for (const auto& a : n.attribute()) {
      if (a.name() != "value" || !a.has_t()) continue;
      Initializer init = initializer(a.t());
      if (init.elements <= 1) continue;
      init.name = n.output(0);
      init.constant_node = node_name;
      init.offset = init.length = 0;  // attribute tensors have no name to find their stripped payload by
      graph.initializers[n.output(0)] = static_cast<int>(model.initializers.size());
      model.initializers.push_back(std::move(init));
    }
  }

  Initializer initializer(const onnx::TensorProto& t) {
    Initializer init;
    init.name = t.name();
    init.dtype = static_cast<DType>(t.data_type());
    init.dims.assign(t.dims().begin(), t.dims().end());
    uint64_t n = 1;
    for (auto d : init.dims) n = sat_mul(n, as_count(d));
    init.elements = static_cast<int64_t>(n);
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
      auto ref = resolve_external_data(t, name_, dir_);
      init.external_file = ref.file;
      init.offset = ref.offset;
      init.length = ref.length;
    } else if (auto it = spans_.find(t.name()); it != spans_.end()) {
      init.offset = it->second->offset;
      init.length = it->second->length;
    }
    tensor_int_values(t, init.int_values);
    return init;
  }

  const onnx::ModelProto& m_;
  const ShapeResult& shapes_;
  const std::unordered_map<const onnx::GraphProto*, std::vector<int>>& order_;
  std::string name_, dir_;
  std::unordered_map<std::string, const PayloadSpan*> spans_;
  std::vector<const onnx::GraphProto*> protos_;
  std::unordered_map<const onnx::GraphProto*, int> index_;
};

}  // namespace

Model load_model_from_bytes(const uint8_t* data, size_t size, const std::string& name, const std::string& dir,
                            const ShapeOverrides& overrides) {
  Skeleton sk;
  onnx::ModelProto m = parse_skeleton(data, size, name, sk);
  check_initializers(m.graph(), name, dir, 0);
  std::unordered_map<const onnx::GraphProto*, std::vector<int>> order;
  ShapeResult shapes;
  try {
    shapes = resolve_proto_shapes(m, overrides, name, order);
  } catch (const UserError&) {
    throw;
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw UserError(name + ": shape resolution failed: " + e.what());
  }
  Model model = ModelBuilder(m, shapes, order, sk, name, dir).build();
  for (const auto& f : shapes.failures)
    model.notes.push_back("shape inference failed at node '" + f.node + "' (" + f.op + "): " + f.message);
  model.path = name;
  model.file_bytes = size;
  model.input_values = overrides.values;
  return model;
}

Model load_model(const std::string& path, const ShapeOverrides& overrides) {
  MappedFile file(path);
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  return load_model_from_bytes(file.data(), file.size(), path, dir, overrides);
}

}  // namespace rooflens
