// The shape driver: walks each graph in topological order and infers every node's output types, asking
// rooflens' own ShapeRegistry first and libonnx's official schemas otherwise. Integer values flow along
// (initializers, Constant nodes, libonnx data propagation) so Shape->Gather->Concat->Reshape chains resolve.
#include <cstring>
#include <deque>
#include <unordered_set>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "core/errors.h"
#include "model/proto_shapes.h"
#include "model/proto_convert.h"
#include "model/shape_ops.h"

namespace rooflens {

void apply_overrides(onnx::GraphProto& g, const ShapeOverrides& o, const std::string& file,
                     std::vector<std::string>& notes,
                     std::map<std::string, int64_t>& symbols, int64_t& batch_dims);  // shape_overrides.cpp
std::vector<int> topological_order(const onnx::GraphProto& g, const std::unordered_set<std::string>& available,
                                   const std::string& file);  // toposort.cpp

namespace {

using TypeMap = std::unordered_map<std::string, onnx::TypeProto*>;

// Fills what inference could not know from what the exporter declared: the whole shape when inference
// produced none, single dims when ranks agree. Inferred known dims always win.
void merge_hint(onnx::TypeProto& inferred, const onnx::TypeProto& hint) {
  if (!inferred.has_tensor_type() || !hint.has_tensor_type()) return;
  auto* it = inferred.mutable_tensor_type();
  const auto& ht = hint.tensor_type();
  if (it->elem_type() == 0) it->set_elem_type(ht.elem_type());
  if (!ht.has_shape()) return;
  if (!it->has_shape()) {
    *it->mutable_shape() = ht.shape();
    return;
  }
  if (it->shape().dim_size() != ht.shape().dim_size()) return;
  for (int d = 0; d < ht.shape().dim_size(); ++d) {
    auto* dim = it->mutable_shape()->mutable_dim(d);
    const auto& h = ht.shape().dim(d);
    if (!dim->has_dim_value() && h.has_dim_value()) dim->set_dim_value(h.dim_value());
    else if (!dim->has_dim_value() && !dim->has_dim_param() && h.has_dim_param()) dim->set_dim_param(h.dim_param());
  }
}

onnx::TypeProto tensor_type_of(const onnx::TensorProto& t) {
  onnx::TypeProto tp;
  auto* tt = tp.mutable_tensor_type();
  tt->set_elem_type(t.data_type());
  auto* shape = tt->mutable_shape();
  for (auto d : t.dims()) shape->add_dim()->set_dim_value(d);
  return tp;
}

bool has_inline_data(const onnx::TensorProto& t) {
  return t.has_raw_data() || t.float_data_size() || t.int32_data_size() || t.int64_data_size() ||
         t.double_data_size() || t.uint64_data_size() || t.string_data_size();
}

// libonnx 1.12's conv/pool/space-to-depth inference divides by these attributes without checking them
// (found by our fuzzer: MaxPool with strides [2, 0] raised SIGFPE inside libonnx). A non-positive value is
// invalid ONNX anyway, so the node is refused before libonnx sees it and stays unresolved with this note.
void refuse_hazardous_attributes(const onnx::NodeProto& n) {
  static constexpr const char* kMustBePositive[] = {"strides", "dilations", "kernel_shape", "blocksize", "group"};
  for (const auto& a : n.attribute())
    for (const char* name : kMustBePositive) {
      if (a.name() != name) continue;
      bool bad = a.type() == onnx::AttributeProto::INT ? a.i() <= 0 : false;
      for (auto v : a.ints()) bad |= v <= 0;
      if (bad) throw std::runtime_error(std::string("attribute '") + name + "' must be positive");
    }
}

class Driver {
 public:
  Driver(const onnx::ModelProto& m, const std::string& file, ShapeResult& result,
         std::unordered_map<const onnx::GraphProto*, std::vector<int>>& order)
      : file_(file), result_(result), order_(order), registry_(ShapeRegistry::builtin()) {
    for (const auto& op : m.opset_import()) {
      std::string d = op.domain() == "ai.onnx" ? "" : op.domain();
      opsets_[d] = static_cast<int>(op.version());
    }
    ir_version_ = static_cast<int>(m.ir_version());
  }

  void run_graph(onnx::GraphProto& g, const TypeMap& outer, int depth) {
    if (depth > 32) throw UserError(file_ + ": subgraphs nested deeper than 32 levels");
    TypeMap types = outer;
    std::unordered_map<std::string, const onnx::TensorProto*> data;  // known constant tensors
    std::unordered_set<std::string> available;
    for (const auto& [name, _] : outer) available.insert(name);
    std::unordered_set<std::string> local_initializers;
    for (const auto& t : g.initializer()) {
      local_initializers.insert(t.name());
      types[t.name()] = keep(tensor_type_of(t));
      if (has_inline_data(t)) data[t.name()] = &t;
      available.insert(t.name());
    }
    for (const auto& in : g.input()) {
      // Old IR versions list initializers as inputs too; the initializer's own dims are authoritative.
      if (!local_initializers.count(in.name())) types[in.name()] = keep(in.type());
      available.insert(in.name());
    }
    // Exporter-declared types of intermediate values and outputs: hints that inference refines.
    for (const auto* list : {&g.value_info(), &g.output()})
      for (const auto& vi : *list)
        if (!local_initializers.count(vi.name()) && !available.count(vi.name()) && vi.has_type())
          types[vi.name()] = keep(vi.type());

    auto& order = order_[&g];
    order = topological_order(g, available, file_);
    for (int idx : order) run_node(*g.mutable_node(idx), types, data, depth);

    auto& out = result_.types[&g];
    for (const auto& [name, tp] : types)
      if (!outer.count(name) || outer.at(name) != tp) out[name] = *tp;
  }

 private:
  onnx::TypeProto* keep(const onnx::TypeProto& t) {
    arena_.push_back(t);
    return &arena_.back();
  }
  int opset_of(const std::string& domain) const {
    auto it = opsets_.find(domain == "ai.onnx" ? "" : domain);
    return it == opsets_.end() ? 1 : it->second;
  }

  void run_node(onnx::NodeProto& n, TypeMap& types, std::unordered_map<std::string, const onnx::TensorProto*>& data,
                int depth) {
    const std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
    const int opset = opset_of(domain);
    std::vector<onnx::TypeProto> outs(n.output_size());
    bool ok = false;
    try {
      if (const ShapeFn* fn = registry_.find(domain, n.op_type(), opset)) ok = run_own(*fn, n, types, data, outs);
      else ok = run_onnx(n, domain, opset, types, data, outs, depth);
    } catch (const std::exception& e) {
      result_.failures.push_back({n.name(), n.op_type(), e.what()});
    }
    for (int i = 0; i < n.output_size(); ++i) {
      const std::string& name = n.output(i);
      if (name.empty()) continue;
      bool inferred = ok && outs[i].value_case() != onnx::TypeProto::VALUE_NOT_SET;
      auto hint = types.find(name);  // exporter-declared type (value_info or graph output), if any
      if (!inferred) continue;
      if (hint != types.end()) merge_hint(outs[i], *hint->second);
      types[name] = keep(outs[i]);
    }
    if (n.op_type() == "Constant" && domain.empty() && n.output_size() == 1)
      for (const auto& a : n.attribute())
        if (a.name() == "value" && a.has_t() && has_inline_data(a.t())) data[n.output(0)] = &a.t();
    // Subgraph bodies: libonnx's If/Loop/Scan inference already typed their formal inputs; walk them with
    // this scope as outer so contrib ops inside resolve too.
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) run_graph(*a.mutable_g(), types, depth + 1);
      for (auto& sg : *a.mutable_graphs()) run_graph(sg, types, depth + 1);
    }
  }

  bool run_onnx(onnx::NodeProto& n, const std::string& domain, int opset, TypeMap& types,
                std::unordered_map<std::string, const onnx::TensorProto*>& data, std::vector<onnx::TypeProto>& outs,
                int depth) {
    const auto* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), opset, domain);
    if (!schema) return false;
    schema->Verify(n);  // arity and attribute checks first, so inference functions see a well-formed node
    refuse_hazardous_attributes(n);
    onnx::shape_inference::GraphInferenceContext gctx(types, opsets_, &symbols_, {},
                                                      onnx::OpSchemaRegistry::Instance(), &generated_, ir_version_);
    std::unordered_map<std::string, const onnx::SparseTensorProto*> sparse;
    onnx::shape_inference::InferenceContextImpl ctx(n, types, data, sparse, &generated_, &gctx);
    if (schema->has_type_and_shape_inference_function()) {
      schema->GetTypeAndShapeInferenceFunction()(ctx);
    } else if (!infer_through_function_body(*schema, n, types, ctx)) {
      return false;
    }
    for (size_t i = 0; i < outs.size(); ++i) outs[i] = *ctx.getOutputType(i);
    if (schema->has_data_propagation_function()) {
      // Record the output types first: data propagation reads them through the same map.
      TypeMap with_outputs = types;
      for (int i = 0; i < n.output_size(); ++i)
        if (!n.output(i).empty()) with_outputs[n.output(i)] = &outs[i];
      onnx::shape_inference::DataPropagationContextImpl dctx(n, with_outputs, data, generated_);
      schema->GetDataPropagationFunction()(dctx);
    }
    return true;
  }

  // Ops defined as functions (LessOrEqual, Celu, ...) have no inference function of their own in libonnx
  // 1.12: infer through their expanded body, as libonnx's whole-model inference does.
  bool infer_through_function_body(const onnx::OpSchema& schema, const onnx::NodeProto& n, const TypeMap& types,
                                   onnx::shape_inference::InferenceContextImpl& ctx) {
    onnx::ShapeInferenceOptions options(false, 1, false);
    if (schema.HasFunction() && schema.GetFunction()) {
      onnx::shape_inference::InferShapeForFunctionNode(*schema.GetFunction(), onnx::OpSchemaRegistry::Instance(),
                                                       ctx, options, {}, &symbols_, &generated_);
      return true;
    }
    if (!schema.HasContextDependentFunction()) return false;
    std::vector<onnx::TypeProto> input_types;
    for (const auto& in : n.input()) {
      auto it = types.find(in);
      input_types.push_back(it == types.end() ? onnx::TypeProto() : *it->second);
    }
    onnx::FunctionBodyBuildContextImpl build(n, input_types);
    onnx::FunctionProto body;
    if (!schema.BuildContextDependentFunction(build, body)) return false;
    onnx::shape_inference::InferShapeForFunctionNode(body, onnx::OpSchemaRegistry::Instance(), ctx, options, {},
                                                     &symbols_, &generated_);
    return true;
  }

  bool run_own(const ShapeFn& fn, const onnx::NodeProto& n, const TypeMap& types,
               const std::unordered_map<std::string, const onnx::TensorProto*>& data,
               std::vector<onnx::TypeProto>& outs) {
    Node node = convert_node(n, opset_of(n.domain()), nullptr);
    ShapeInput in;
    in.node = &node;
    std::deque<TensorInfo> infos;
    for (const auto& name : n.input()) {
      auto it = types.find(name);
      if (name.empty() || it == types.end()) {
        in.in.push_back(nullptr);
      } else {
        infos.push_back(tensor_info_of(*it->second));
        in.in.push_back(&infos.back());
      }
      in.in_values.push_back(known_values(name, data));
    }
    std::vector<TensorInfo> result(n.output_size());
    if (!fn(in, result)) return false;
    for (size_t i = 0; i < result.size(); ++i) outs[i] = type_proto_of(result[i]);
    return true;
  }

  std::optional<std::vector<int64_t>> known_values(
      const std::string& name, const std::unordered_map<std::string, const onnx::TensorProto*>& data) const {
    if (name.empty()) return std::nullopt;
    if (auto it = data.find(name); it != data.end()) {
      std::vector<int64_t> v;
      if (tensor_int_values(*it->second, v)) return v;
    }
    if (auto it = generated_.find(name); it != generated_.end()) {
      std::vector<int64_t> v;
      for (const auto& d : it->second.dim()) {
        if (!d.has_dim_value()) return std::nullopt;
        v.push_back(d.dim_value());
      }
      return v;
    }
    return std::nullopt;
  }

  const std::string& file_;
  ShapeResult& result_;
  std::unordered_map<const onnx::GraphProto*, std::vector<int>>& order_;
  ShapeRegistry registry_;
  std::unordered_map<std::string, int> opsets_;
  int ir_version_ = 0;
  std::deque<onnx::TypeProto> arena_;  // stable addresses for the TypeMaps
  std::unordered_map<std::string, onnx::TensorShapeProto> generated_;
  onnx::shape_inference::SymbolTableImpl symbols_;
};

}  // namespace

bool tensor_int_values(const onnx::TensorProto& t, std::vector<int64_t>& out) {
  constexpr size_t kMax = 1 << 16;
  out.clear();
  const auto type = t.data_type();
  if (type != onnx::TensorProto::INT64 && type != onnx::TensorProto::INT32) return false;
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    size_t width = type == onnx::TensorProto::INT64 ? 8 : 4;
    if (raw.size() % width || raw.size() / width > kMax) return false;
    for (size_t i = 0; i < raw.size(); i += width) {
      if (width == 8) {
        int64_t v;
        std::memcpy(&v, raw.data() + i, 8);
        out.push_back(v);
      } else {
        int32_t v;
        std::memcpy(&v, raw.data() + i, 4);
        out.push_back(v);
      }
    }
  } else if (type == onnx::TensorProto::INT64) {
    if (static_cast<size_t>(t.int64_data_size()) > kMax) return false;
    out.assign(t.int64_data().begin(), t.int64_data().end());
  } else {
    if (static_cast<size_t>(t.int32_data_size()) > kMax) return false;
    out.assign(t.int32_data().begin(), t.int32_data().end());
  }
  int64_t expected = 1;
  for (auto d : t.dims()) {
    if (d < 0 || d > static_cast<int64_t>(kMax)) return false;
    expected *= d;
    if (expected > static_cast<int64_t>(kMax)) return false;
  }
  return static_cast<int64_t>(out.size()) == expected;
}

ShapeResult resolve_proto_shapes(onnx::ModelProto& model, const ShapeOverrides& overrides, const std::string& file,
                                 std::unordered_map<const onnx::GraphProto*, std::vector<int>>& order) {
  ShapeResult result;
  apply_overrides(*model.mutable_graph(), overrides, file, result.notes, result.input_symbols, result.batch_dims);
  Driver driver(model, file, result, order);
  driver.run_graph(*model.mutable_graph(), {}, 0);
  return result;
}

}  // namespace rooflens
