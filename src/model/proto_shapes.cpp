// The shape inference's core (model/shape_inference.h): walks each graph in topological order and infers every node's
// output types, asking rooflens' own ShapeRegistry first and libonnx's official schemas otherwise; the evaluator's
// values (shape_inference_values.cpp) flow along, so Shape->Gather->Div->Cast->Concat->Reshape chains resolve.
#include <cstring>
#include <deque>
#include <functional>
#include <unordered_set>

#include "core/errors.h"
#include "model/libonnx_preconditions.h"
#include "model/proto_convert.h"
#include "model/shape_inference.h"

namespace rooflens {

void apply_overrides(onnx::GraphProto& g, const ShapeOverrides& o, const std::string& file,
                     std::vector<std::string>& notes,
                     std::map<std::string, int64_t>& symbols, int64_t& batch_dims);  // shape_overrides.cpp
std::vector<int> topological_order(const onnx::GraphProto& g, const std::unordered_set<std::string>& available,
                                   const std::string& file);  // toposort.cpp

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

namespace {

onnx::TypeProto tensor_type_of(const onnx::TensorProto& t) {
  onnx::TypeProto tp;
  auto* tt = tp.mutable_tensor_type();
  tt->set_elem_type(t.data_type());
  auto* shape = tt->mutable_shape();
  for (auto d : t.dims()) shape->add_dim()->set_dim_value(d);
  return tp;
}

}  // namespace

ShapeInference::ShapeInference(const onnx::ModelProto& m, const std::string& file, ShapeResult& result,
               std::unordered_map<const onnx::GraphProto*, std::vector<int>>& order)
    : file_(file), result_(result), order_(order), registry_(ShapeRegistry::builtin()),
      values_registry_(ValueOpRegistry::builtin()) {
  for (const auto& op : m.opset_import()) {
    std::string d = op.domain() == "ai.onnx" ? "" : op.domain();
    opsets_[d] = static_cast<int>(op.version());
  }
  ir_version_ = static_cast<int>(m.ir_version());
  // Re-running bodies (Loop fixed points, trip counts) may visit this many nodes in all: generous for real
  // models (a few re-runs of each body), a hard stop for hostile nesting.
  int64_t nodes = 0;
  std::function<void(const onnx::GraphProto&, int)> count = [&](const onnx::GraphProto& g, int depth) {
    if (depth > 32) return;
    nodes += g.node_size();
    for (const auto& n : g.node())
      for (const auto& a : n.attribute()) {
        if (a.has_g()) count(a.g(), depth + 1);
        for (const auto& sg : a.graphs()) count(sg, depth + 1);
      }
  };
  count(m.graph(), 0);
  budget_ = 8 * nodes + 100000;
}

void ShapeInference::run_main(onnx::GraphProto& g, const std::map<std::string, std::vector<double>>& input_values) {
  Scope outer;
  for (const auto& in : g.input())
    if (auto it = input_values.find(in.name()); it != input_values.end())
      seed_input_value(in.name(), it->second, in.type(), outer);
  run_graph(g, outer, 0);
}

GraphOutputs ShapeInference::run_graph(onnx::GraphProto& g, const Scope& outer, int depth) {
  if (depth > 32) throw UserError(file_ + ": subgraphs nested deeper than 32 levels");
  Scope scope = outer;
  std::unordered_set<std::string> available;
  for (const auto& [name, _] : outer.types) available.insert(name);
  std::unordered_set<std::string> local_initializers;
  for (const auto& t : g.initializer()) {
    local_initializers.insert(t.name());
    scope.types[t.name()] = keep(tensor_type_of(t));
    scope.values.erase(t.name());
    scope.data.erase(t.name());
    seed_initializer(t, scope);
    available.insert(t.name());
  }
  for (const auto& in : g.input()) {
    // Old IR versions list initializers as inputs too; the initializer's own dims are authoritative.
    if (!local_initializers.count(in.name())) {
      scope.types[in.name()] = keep(in.type());
      if (depth > 0) {  // a body's formal input shadows any outer value of the same name
        scope.values.erase(in.name());
        scope.data.erase(in.name());
      }
    }
    available.insert(in.name());
  }
  // Exporter-declared types of intermediate values and outputs: hints that inference refines.
  for (const auto* list : {&g.value_info(), &g.output()})
    for (const auto& vi : *list)
      if (!local_initializers.count(vi.name()) && !available.count(vi.name()) && vi.has_type())
        scope.types[vi.name()] = keep(vi.type());

  auto& order = order_[&g];
  order = topological_order(g, available, file_);
  for (int idx : order) run_node(*g.mutable_node(idx), scope, depth);

  auto& out = result_.types[&g];
  out.clear();  // a body run again (Loop fixed point) replaces what the previous run found
  for (const auto& [name, tp] : scope.types)
    if (!outer.types.count(name) || outer.types.at(name) != tp) out[name] = *tp;

  GraphOutputs result;
  for (const auto& o : g.output()) {
    auto t = scope.types.find(o.name());
    result.types.push_back(t == scope.types.end() ? onnx::TypeProto() : *t->second);
    auto v = scope.values.find(o.name());
    result.values.push_back(v == scope.values.end() ? nullptr : v->second);
  }
  return result;
}

onnx::TypeProto* ShapeInference::keep(const onnx::TypeProto& t) {
  arena_.push_back(t);
  return &arena_.back();
}

const onnx::TensorProto* ShapeInference::keep(onnx::TensorProto t) {
  tensors_.push_back(std::move(t));
  return &tensors_.back();
}

int ShapeInference::opset_of(const std::string& domain) const {
  auto it = opsets_.find(domain == "ai.onnx" ? "" : domain);
  return it == opsets_.end() ? 1 : it->second;
}

void ShapeInference::note_failure(const onnx::NodeProto& n, const std::string& message) {
  if (!silent_) result_.failures.push_back({n.name(), n.op_type(), message});
}

void ShapeInference::run_node(onnx::NodeProto& n, Scope& scope, int depth) {
  const std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
  const int opset = opset_of(domain);
  const Node node = convert_node(n, opset, nullptr);
  std::vector<onnx::TypeProto> outs(n.output_size());
  std::vector<ValuePtr> values(n.output_size());
  bool ok = false, control = false;
  try {
    control = domain.empty() && run_control_flow(n, node, scope, depth, outs, values);
    if (control) ok = true;
    else if (const ShapeFn* fn = registry_.find(domain, n.op_type(), opset)) ok = run_own(*fn, n, node, scope, outs);
    else ok = run_onnx(n, domain, opset, scope, outs);
  } catch (const UserError&) {
    throw;  // nesting too deep, cycles: the whole model is refused
  } catch (const std::exception& e) {
    note_failure(n, e.what());
  }
  if (!control) values = evaluate(n, node, scope, outs);
  const bool is_constant = node.op == "Constant" && domain.empty() && n.output_size() == 1 && node.attr("value");
  for (int i = 0; i < n.output_size(); ++i) {
    const std::string& name = n.output(i);
    if (name.empty()) continue;
    const ValuePtr& v = values[static_cast<size_t>(i)];
    // A computed value's dims are exact: they win over whatever inference said.
    if (v && v->dtype != DType::Undefined) outs[i] = type_of_value(*v);
    bool inferred = (ok || v) && outs[i].value_case() != onnx::TypeProto::VALUE_NOT_SET;
    if (inferred) {
      auto hint = scope.types.find(name);  // exporter-declared type (value_info or graph output), if any
      if (hint != scope.types.end()) merge_hint(outs[i], *hint->second);
      scope.types[name] = keep(outs[i]);
    }
    if (v) publish(name, v, scope, !is_constant);
  }
  // A Constant's own tensor is what libonnx reads (whatever its size): no copy of it is made.
  if (is_constant)
    for (const auto& a : n.attribute())
      if (a.name() == "value" && a.has_t() && a.t().data_location() != onnx::TensorProto::EXTERNAL &&
          (a.t().has_raw_data() || a.t().float_data_size() || a.t().int32_data_size() || a.t().int64_data_size() ||
           a.t().double_data_size() || a.t().uint64_data_size() || a.t().string_data_size()))
        scope.data[n.output(0)] = &a.t();
  if (control) return;
  // Bodies of other ops (contrib ops, sequence ops): walked with this scope as outer so their nodes resolve too.
  for (auto& a : *n.mutable_attribute()) {
    if (a.has_g()) run_graph(*a.mutable_g(), scope, depth + 1);
    for (auto& sg : *a.mutable_graphs()) run_graph(sg, scope, depth + 1);
  }
}

bool ShapeInference::run_onnx(onnx::NodeProto& n, const std::string& domain, int opset, Scope& scope,
                      std::vector<onnx::TypeProto>& outs) {
  const auto* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), opset, domain);
  if (!schema) return false;
  schema->Verify(n);  // arity and attribute checks first, so inference functions see a well-formed node
  check_libonnx_preconditions(n, scope.types);
  TypeMap& types = scope.types;
  onnx::shape_inference::GraphInferenceContext gctx(types, opsets_, &symbols_, {},
                                                    onnx::OpSchemaRegistry::Instance(), &generated_, ir_version_);
  std::unordered_map<std::string, const onnx::SparseTensorProto*> sparse;
  onnx::shape_inference::InferenceContextImpl ctx(n, types, scope.data, sparse, &generated_, &gctx);
  if (schema->has_type_and_shape_inference_function()) {
    schema->GetTypeAndShapeInferenceFunction()(ctx);
  } else if (!infer_through_function_body(*schema, n, types, ctx)) {
    return false;
  }
  for (size_t i = 0; i < outs.size(); ++i) outs[i] = *ctx.getOutputType(i);
  // libonnx's data propagation is not run: the evaluator computes the same values (and more), and hands partly
  // symbolic ones to libonnx as shape data itself (ShapeInference::publish).
  return true;
}

// Ops defined as functions (LessOrEqual, Celu, ...) have no inference function of their own in libonnx
// 1.12: infer through their expanded body, as libonnx's whole-model inference does.
bool ShapeInference::infer_through_function_body(const onnx::OpSchema& schema, const onnx::NodeProto& n, const TypeMap& types,
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

bool ShapeInference::run_own(const ShapeFn& fn, const onnx::NodeProto& n, const Node& node, const Scope& scope,
                     std::vector<onnx::TypeProto>& outs) {
  ShapeInput in;
  in.node = &node;
  in.syms = &syms_;
  std::deque<TensorInfo> infos;
  for (const auto& name : n.input()) {
    auto it = scope.types.find(name);
    if (name.empty() || it == scope.types.end()) {
      in.in.push_back(nullptr);
    } else {
      infos.push_back(tensor_info_of(*it->second));
      in.in.push_back(&infos.back());
    }
    auto v = name.empty() ? scope.values.end() : scope.values.find(name);
    in.values.push_back(v == scope.values.end() ? nullptr : v->second);
    in.in_values.push_back(in.values.back() ? in.values.back()->ints() : std::nullopt);
  }
  std::vector<TensorInfo> result(n.output_size());
  if (!fn(in, result)) return false;
  for (size_t i = 0; i < result.size(); ++i) outs[i] = type_proto_of(result[i]);
  return true;
}

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
  ShapeInference inference(model, file, result, order);
  inference.run_main(*model.mutable_graph(), overrides.values);
  return result;
}

}  // namespace rooflens
