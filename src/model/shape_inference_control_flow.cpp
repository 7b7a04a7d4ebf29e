// Control flow in the shape inference: If, Loop and Scan are resolved here rather than by libonnx, because only
// here are the values known. An If whose condition is computable takes its branch (the other is walked silently
// and marked not taken); with an unknown condition both are walked and their outputs merged. Loop and Scan bodies
// see the outer scope; loop-carried types are iterated to a fixed point; trip counts come from M, from Scan's
// input length, or from simulating the body's condition on values.
#include <functional>

#include "core/errors.h"
#include "model/proto_convert.h"
#include "model/shape_inference.h"

namespace rooflens {
namespace {

// Trip counts are simulated up to this many iterations; beyond, the count stays unknown unless M gives it.
constexpr int64_t kMaxSimulatedTrips = 1 << 16;

onnx::GraphProto* body_attr(onnx::NodeProto& n, const char* name) {
  for (auto& a : *n.mutable_attribute())
    if (a.name() == name && a.has_g()) return a.mutable_g();
  return nullptr;
}

std::optional<bool> scalar_truth(const ValuePtr& v) {
  if (!v || v->elems.size() != 1 || !v->elems[0].concrete()) return std::nullopt;
  const Elem& e = v->elems[0];
  return e.kind == Elem::Kind::Int ? e.i != 0 : e.f != 0;
}

std::optional<int64_t> scalar_int(const ValuePtr& v) {
  if (!v || v->elems.size() != 1 || v->elems[0].kind != Elem::Kind::Int) return std::nullopt;
  return v->elems[0].i;
}

bool same_type(const onnx::TypeProto& a, const onnx::TypeProto& b) { return a.SerializeAsString() == b.SerializeAsString(); }

// What two alternatives have in common: the element type, and the dims both agree on (a rank they disagree on
// is dropped). Used for the outputs of an If with an unknown condition and to widen loop-carried types.
onnx::TypeProto merge_types(const onnx::TypeProto& a, const onnx::TypeProto& b) {
  if (a.value_case() == onnx::TypeProto::VALUE_NOT_SET) return b.value_case() == onnx::TypeProto::VALUE_NOT_SET ? a : onnx::TypeProto();
  if (!a.has_tensor_type() || !b.has_tensor_type()) return same_type(a, b) ? a : onnx::TypeProto();
  onnx::TypeProto r;
  auto* rt = r.mutable_tensor_type();
  const auto &at = a.tensor_type(), &bt = b.tensor_type();
  rt->set_elem_type(at.elem_type() == bt.elem_type() ? at.elem_type() : 0);
  if (!at.has_shape() || !bt.has_shape() || at.shape().dim_size() != bt.shape().dim_size()) return r;
  auto* shape = rt->mutable_shape();
  for (int i = 0; i < at.shape().dim_size(); ++i) {
    const auto &da = at.shape().dim(i), &db = bt.shape().dim(i);
    auto* d = shape->add_dim();
    if (da.has_dim_value() && db.has_dim_value() && da.dim_value() == db.dim_value()) d->set_dim_value(da.dim_value());
    else if (da.has_dim_param() && db.has_dim_param() && da.dim_param() == db.dim_param()) d->set_dim_param(da.dim_param());
  }
  return r;
}

onnx::TypeProto scalar_type(int32_t elem) {
  onnx::TypeProto t;
  t.mutable_tensor_type()->set_elem_type(elem);
  t.mutable_tensor_type()->mutable_shape();
  return t;
}

// `t` with a dim inserted at `axis` (the stacked per-iteration outputs of Loop and Scan); trips < 0: unknown.
onnx::TypeProto stacked(const onnx::TypeProto& t, int64_t trips, int64_t axis) {
  if (!t.has_tensor_type()) return t;
  onnx::TypeProto r = t;
  auto* tt = r.mutable_tensor_type();
  if (!tt->has_shape()) return r;
  onnx::TensorShapeProto shape;
  const int rank = tt->shape().dim_size() + 1;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) {
    tt->clear_shape();
    return r;
  }
  for (int i = 0, src = 0; i < rank; ++i) {
    auto* d = shape.add_dim();
    if (i == axis) {
      if (trips >= 0) d->set_dim_value(trips);
    } else {
      *d = tt->shape().dim(src++);
    }
  }
  *tt->mutable_shape() = shape;
  return r;
}

// `t` without dim `axis` (one slice of a Scan input).
onnx::TypeProto sliced(const onnx::TypeProto& t, int64_t axis) {
  if (!t.has_tensor_type() || !t.tensor_type().has_shape()) return t;
  onnx::TypeProto r = t;
  auto* shape = r.mutable_tensor_type()->mutable_shape();
  const int rank = shape->dim_size();
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) {
    r.mutable_tensor_type()->clear_shape();
    return r;
  }
  shape->mutable_dim()->DeleteSubrange(static_cast<int>(axis), 1);
  return r;
}

// Marks a region where failures are not the model's (a branch that never runs); restored on any exit.
struct Silence {
  explicit Silence(int& level) : level_(level) { ++level_; }
  ~Silence() { --level_; }
  int& level_;
};

}  // namespace

bool ShapeInference::run_control_flow(onnx::NodeProto& n, const Node& node, Scope& scope, int depth,
                              std::vector<onnx::TypeProto>& outs, std::vector<ValuePtr>& values) {
  if (node.op == "If") run_if(n, scope, depth, outs, values);
  else if (node.op == "Loop") run_loop(n, scope, depth, outs, values);
  else if (node.op == "Scan" && node.opset >= 9) run_scan(n, node, scope, depth, outs, values);
  else return false;
  return true;
}

void ShapeInference::set_body_inputs(onnx::GraphProto& body, const std::vector<onnx::TypeProto>& types) {
  auto& declared = declared_inputs_[&body];
  if (declared.empty())
    for (const auto& in : body.input()) declared.push_back(in.type());
  for (int i = 0; i < body.input_size() && static_cast<size_t>(i) < types.size(); ++i) {
    onnx::TypeProto t = types[static_cast<size_t>(i)];
    if (t.value_case() == onnx::TypeProto::VALUE_NOT_SET) t = declared[static_cast<size_t>(i)];
    else merge_hint(t, declared[static_cast<size_t>(i)]);
    *body.mutable_input(i)->mutable_type() = t;
  }
}

void ShapeInference::run_if(onnx::NodeProto& n, Scope& scope, int depth, std::vector<onnx::TypeProto>& outs,
                    std::vector<ValuePtr>& values) {
  onnx::GraphProto* then_g = body_attr(n, "then_branch");
  onnx::GraphProto* else_g = body_attr(n, "else_branch");
  if (!then_g || !else_g) throw std::runtime_error("If needs both then_branch and else_branch");
  std::optional<bool> cond;
  if (n.input_size() > 0)
    if (auto it = scope.values.find(n.input(0)); it != scope.values.end()) cond = scalar_truth(it->second);
  auto take = [&](const GraphOutputs& r) {
    for (size_t i = 0; i < outs.size() && i < r.types.size(); ++i) {
      outs[i] = r.types[i];
      values[i] = r.values[i];
    }
  };
  if (cond) {
    onnx::GraphProto* taken = *cond ? then_g : else_g;
    onnx::GraphProto* other = *cond ? else_g : then_g;
    result_.bodies[taken] = {BodyRun::Taken, 1};
    result_.bodies[other] = {BodyRun::NotTaken, 1};
    take(run_graph(*taken, scope, depth + 1));
    Silence quiet(silent_);  // the branch never runs; its nodes are still typed as far as they go
    run_graph(*other, scope, depth + 1);
    return;
  }
  result_.bodies[then_g] = {BodyRun::Unknown, 1};
  result_.bodies[else_g] = {BodyRun::Unknown, 1};
  GraphOutputs a = run_graph(*then_g, scope, depth + 1);
  GraphOutputs b = run_graph(*else_g, scope, depth + 1);
  for (size_t i = 0; i < outs.size() && i < a.types.size() && i < b.types.size(); ++i) {
    outs[i] = merge_types(a.types[i], b.types[i]);
    if (a.values[i] && b.values[i] && *a.values[i] == *b.values[i]) values[i] = a.values[i];
  }
}

// Runs `body` until its carried types (body inputs `first` .. `first + carried`, fed back from body outputs
// `first_out` ..) stop changing: each round widens a changed type to what both rounds agree on. Returns the last
// round's outputs; `inputs` holds the body input types the fixed point settled on.
GraphOutputs ShapeInference::body_fixed_point(onnx::GraphProto& body, std::vector<onnx::TypeProto>& inputs, size_t first,
                                      size_t carried, size_t first_out, const Scope& scope, int depth) {
  GraphOutputs r;
  for (int round = 0;; ++round) {
    set_body_inputs(body, inputs);
    budget_ -= body.node_size();
    r = run_graph(body, scope, depth + 1);
    bool stable = true;
    for (size_t k = 0; k < carried && first_out + k < r.types.size() && first + k < inputs.size(); ++k) {
      const onnx::TypeProto& next = r.types[first_out + k];
      if (next.value_case() == onnx::TypeProto::VALUE_NOT_SET || same_type(next, inputs[first + k])) continue;
      inputs[first + k] = merge_types(inputs[first + k], next);
      stable = false;
    }
    if (stable || round >= 3 || budget_ < 0) return r;
  }
}

void ShapeInference::run_loop(onnx::NodeProto& n, Scope& scope, int depth, std::vector<onnx::TypeProto>& outs,
                      std::vector<ValuePtr>& values) {
  onnx::GraphProto* body = body_attr(n, "body");
  if (!body) throw std::runtime_error("Loop needs a body");
  const size_t carried = n.input_size() > 2 ? static_cast<size_t>(n.input_size() - 2) : 0;
  std::vector<onnx::TypeProto> inputs{scalar_type(onnx::TensorProto::INT64), scalar_type(onnx::TensorProto::BOOL)};
  for (size_t k = 0; k < carried; ++k) {
    auto it = scope.types.find(n.input(static_cast<int>(k + 2)));
    inputs.push_back(it == scope.types.end() ? onnx::TypeProto() : *it->second);
  }
  GraphOutputs r = body_fixed_point(*body, inputs, 2, carried, 1, scope, depth);
  std::vector<ValuePtr> finals;
  const int64_t trips = loop_trips(n, *body, scope, finals);
  result_.bodies[body] = {BodyRun::Always, trips};
  for (size_t i = 0; i < outs.size(); ++i) {
    if (i < carried) {
      // Zero trips hand the initial values through; otherwise the fixed point's carried type.
      outs[i] = trips == 0 ? inputs[i + 2] : (i + 1 < r.types.size() ? merge_types(inputs[i + 2], r.types[i + 1]) : onnx::TypeProto());
      if (trips == 0) {
        auto v = scope.values.find(n.input(static_cast<int>(i + 2)));
        values[i] = v == scope.values.end() ? nullptr : v->second;
      } else if (i < finals.size()) {
        values[i] = finals[i];
        if (values[i]) outs[i] = type_of_value(*values[i]);
      }
    } else if (1 + i < r.types.size()) {
      outs[i] = stacked(r.types[1 + i], trips, 0);
    }
  }
}

// Trip count of a Loop: M when the condition is absent, else the body's condition simulated on values (bounded
// by M, kMaxSimulatedTrips and the inference's budget). `finals` receives the carried values after the last trip
// when the simulation ran to the end. -1 when unknown.
int64_t ShapeInference::loop_trips(onnx::NodeProto& n, onnx::GraphProto& body, Scope& scope, std::vector<ValuePtr>& finals) {
  auto value_of = [&](int i) -> ValuePtr {
    if (i >= n.input_size() || n.input(i).empty()) return nullptr;
    auto it = scope.values.find(n.input(i));
    return it == scope.values.end() ? nullptr : it->second;
  };
  const bool has_m = n.input_size() > 0 && !n.input(0).empty();
  const bool has_cond = n.input_size() > 1 && !n.input(1).empty();
  // M as a plain count, -1 when not given. (Kept out of a std::optional: GCC 12 at -O1/-O2 takes the optional's value
  // in the loop below for possibly uninitialized — a false -Wmaybe-uninitialized, GCC bug 80635.)
  int64_t trips = -1;
  if (has_m) {
    const std::optional<int64_t> m = scalar_int(value_of(0));
    if (!m) return -1;
    trips = std::max<int64_t>(*m, 0);
  }
  if (has_cond) {
    auto c = scalar_truth(value_of(1));
    if (!c) return -1;
    if (!*c) return 0;
  }
  if (!has_cond && trips < 0) return -1;  // neither M nor a condition: runs until the runtime gives up
  if (!has_cond && trips > kMaxSimulatedTrips) return trips;  // the condition is ignored: M is the count
  // Simulate: the body's values, iteration after iteration, in a scope that sees the outer values.
  Scope sim = scope;
  const auto& body_types = result_.types[&body];
  for (const auto& [name, tp] : body_types) sim.types[name] = const_cast<onnx::TypeProto*>(&tp);
  const auto& order = order_[&body];
  const size_t carried = n.input_size() > 2 ? static_cast<size_t>(n.input_size() - 2) : 0;
  std::vector<ValuePtr> state;
  for (size_t k = 0; k < carried; ++k) state.push_back(value_of(static_cast<int>(k + 2)));
  auto set_input = [&](int i, ValuePtr v) {
    if (i >= body.input_size()) return;
    if (v) sim.values[body.input(i).name()] = std::move(v);
    else sim.values.erase(body.input(i).name());
  };
  for (int64_t i = 0;; ++i) {
    if (trips >= 0 && i >= trips) break;
    if (i >= kMaxSimulatedTrips || budget_ < 0) return has_cond ? -1 : trips;
    budget_ -= body.node_size();
    ShapeValue iter{DType::Int64, {}, {Elem::integer(i)}}, cond{DType::Bool, {}, {Elem::integer(1)}};
    set_input(0, std::make_shared<const ShapeValue>(iter));
    set_input(1, std::make_shared<const ShapeValue>(cond));
    for (size_t k = 0; k < carried; ++k) set_input(static_cast<int>(k + 2), state[k]);
    Silence quiet(silent_);  // a simulated iteration's failures are not notes of the model
    for (int idx : order) {
      const onnx::NodeProto& node_proto = body.node(idx);
      const Node node = convert_node(node_proto, opset_of(node_proto.domain()), nullptr);
      std::vector<onnx::TypeProto> outs;
      for (const auto& o : node_proto.output()) {
        auto t = sim.types.find(o);
        outs.push_back(t == sim.types.end() ? onnx::TypeProto() : *t->second);
      }
      auto vs = evaluate(node_proto, node, sim, outs);
      for (int o = 0; o < node_proto.output_size(); ++o) {
        if (node_proto.output(o).empty()) continue;
        if (vs[static_cast<size_t>(o)]) sim.values[node_proto.output(o)] = vs[static_cast<size_t>(o)];
        else sim.values.erase(node_proto.output(o));
      }
    }
    auto out_value = [&](int k) -> ValuePtr {
      if (k >= body.output_size()) return nullptr;
      auto it = sim.values.find(body.output(k).name());
      return it == sim.values.end() ? nullptr : it->second;
    };
    for (size_t k = 0; k < carried; ++k) state[k] = out_value(static_cast<int>(k + 1));
    if (has_cond) {
      auto c = scalar_truth(out_value(0));
      if (!c) return -1;
      if (!*c) {
        finals = state;
        return i + 1;
      }
    }
  }
  finals = state;
  return trips;  // the loop above ends by this break only when M is given
}

void ShapeInference::run_scan(onnx::NodeProto& n, const Node& node, Scope& scope, int depth,
                      std::vector<onnx::TypeProto>& outs, std::vector<ValuePtr>& values) {
  onnx::GraphProto* body = body_attr(n, "body");
  if (!body) throw std::runtime_error("Scan needs a body");
  const int64_t scans = node.attr_i("num_scan_inputs", 0);
  if (scans <= 0 || scans > n.input_size()) throw std::runtime_error("Scan's num_scan_inputs does not match its inputs");
  const size_t states = static_cast<size_t>(n.input_size() - scans);
  const auto in_axes = node.attr_ints("scan_input_axes"), out_axes = node.attr_ints("scan_output_axes");
  std::vector<onnx::TypeProto> inputs;
  int64_t trips = -1;
  for (int i = 0; i < n.input_size(); ++i) {
    auto it = scope.types.find(n.input(i));
    onnx::TypeProto t = it == scope.types.end() ? onnx::TypeProto() : *it->second;
    if (static_cast<size_t>(i) >= states) {
      const size_t k = static_cast<size_t>(i) - states;
      const int64_t axis = k < in_axes.size() ? in_axes[k] : 0;
      if (trips < 0 && t.has_tensor_type() && t.tensor_type().has_shape()) {
        const auto& shape = t.tensor_type().shape();
        const int64_t a = axis < 0 ? axis + shape.dim_size() : axis;
        if (a >= 0 && a < shape.dim_size() && shape.dim(static_cast<int>(a)).has_dim_value())
          trips = shape.dim(static_cast<int>(a)).dim_value();
      }
      t = sliced(t, axis);
    }
    inputs.push_back(t);
  }
  GraphOutputs r = body_fixed_point(*body, inputs, 0, states, 0, scope, depth);
  result_.bodies[body] = {BodyRun::Always, trips};
  for (size_t i = 0; i < outs.size() && i < r.types.size(); ++i) {
    if (i < states) {
      outs[i] = trips == 0 ? inputs[i] : merge_types(inputs[i], r.types[i]);
    } else {
      const size_t k = i - states;
      outs[i] = stacked(r.types[i], trips, k < out_axes.size() ? out_axes[k] : 0);
    }
  }
  (void)values;  // Scan's outputs are activations, never shape values
}

}  // namespace rooflens
