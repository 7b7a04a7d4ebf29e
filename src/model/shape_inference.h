#pragma once
// Internal to src/model: the shape inference. It walks each graph in topological order and, per node, infers the
// output types (rooflens' own ShapeRegistry first, libonnx's schemas otherwise), computes the output values the
// evaluator can (value_eval.h) and publishes both, so later nodes see them. If/Loop/Scan are its own
// (shape_inference_control_flow.cpp): a computable condition takes one branch, trip counts come from values.
// proto_shapes.cpp: the per-node core; shape_inference_values.cpp: values in and out of protobuf;
// shape_inference_control_flow.cpp: If, Loop, Scan.
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "model/proto_shapes.h"
#include "model/shape_ops.h"
#include "model/value_eval.h"

namespace rooflens {

using TypeMap = std::unordered_map<std::string, onnx::TypeProto*>;
using DataMap = std::unordered_map<std::string, const onnx::TensorProto*>;
using ValueMap = std::unordered_map<std::string, ValuePtr>;

// Everything visible at one point of one graph: its own values and those of the enclosing graphs.
struct Scope {
  TypeMap types;    // every value's type (arena-owned TypeProtos)
  DataMap data;     // constant contents libonnx's inference functions may read (initializers, computed values)
  ValueMap values;  // contents the evaluator knows (includes everything in `data`, plus symbolic values)
};

struct GraphOutputs {
  std::vector<onnx::TypeProto> types;  // per graph output; VALUE_NOT_SET when unknown
  std::vector<ValuePtr> values;        // per graph output; nullptr when unknown
};

// Fills what inference could not know from what the exporter declared: the whole shape when inference produced
// none, single dims when ranks agree. Inferred known dims always win.
void merge_hint(onnx::TypeProto& inferred, const onnx::TypeProto& hint);

// Decodes a TensorProto's inline data (any numeric type) into a value; nullopt when it has none, is external, or
// holds more than kMaxValueElements elements.
std::optional<ShapeValue> value_of_tensor(const onnx::TensorProto& t);

class ShapeInference {
 public:
  ShapeInference(const onnx::ModelProto& m, const std::string& file, ShapeResult& result,
         std::unordered_map<const onnx::GraphProto*, std::vector<int>>& order);

  // The main graph, with the user's input values (--value) seeded.
  void run_main(onnx::GraphProto& g, const std::map<std::string, std::vector<double>>& input_values);

 private:
  GraphOutputs run_graph(onnx::GraphProto& g, const Scope& outer, int depth);
  void run_node(onnx::NodeProto& n, Scope& scope, int depth);
  bool run_onnx(onnx::NodeProto& n, const std::string& domain, int opset, Scope& scope,
                std::vector<onnx::TypeProto>& outs);
  bool infer_through_function_body(const onnx::OpSchema& schema, const onnx::NodeProto& n, const TypeMap& types,
                                   onnx::shape_inference::InferenceContextImpl& ctx);
  bool run_own(const ShapeFn& fn, const onnx::NodeProto& n, const Node& node, const Scope& scope,
               std::vector<onnx::TypeProto>& outs);
  onnx::TypeProto* keep(const onnx::TypeProto& t);
  const onnx::TensorProto* keep(onnx::TensorProto t);
  int opset_of(const std::string& domain) const;
  void note_failure(const onnx::NodeProto& n, const std::string& message);

  // shape_inference_values.cpp
  std::vector<ValuePtr> evaluate(const onnx::NodeProto& n, const Node& node, const Scope& scope,
                                 const std::vector<onnx::TypeProto>& outs);
  // Makes v the contents of `name`; to_data also hands it to libonnx (as a TensorProto, or as shape data when
  // partly symbolic) — not needed when the name already has its stored tensor there.
  void publish(const std::string& name, const ValuePtr& v, Scope& scope, bool to_data = true);
  void seed_initializer(const onnx::TensorProto& t, Scope& scope);
  void seed_input_value(const std::string& name, const std::vector<double>& given, const onnx::TypeProto& type,
                        Scope& scope);
  static onnx::TypeProto type_of_value(const ShapeValue& v);  // dtype and the value's (concrete) dims
  std::string symbol_for(const SymExpr& e);            // dim_param text of an expression, remembered in syms_

  // shape_inference_control_flow.cpp. Each fills `outs` (types) and `values` for the node's outputs; false = not handled.
  bool run_control_flow(onnx::NodeProto& n, const Node& node, Scope& scope, int depth,
                        std::vector<onnx::TypeProto>& outs, std::vector<ValuePtr>& values);
  void run_if(onnx::NodeProto& n, Scope& scope, int depth, std::vector<onnx::TypeProto>& outs,
              std::vector<ValuePtr>& values);
  void run_loop(onnx::NodeProto& n, Scope& scope, int depth, std::vector<onnx::TypeProto>& outs,
                std::vector<ValuePtr>& values);
  void run_scan(onnx::NodeProto& n, const Node& node, Scope& scope, int depth, std::vector<onnx::TypeProto>& outs,
                std::vector<ValuePtr>& values);
  GraphOutputs body_fixed_point(onnx::GraphProto& body, std::vector<onnx::TypeProto>& inputs, size_t first,
                                size_t carried, size_t first_out, const Scope& scope, int depth);
  int64_t loop_trips(onnx::NodeProto& n, onnx::GraphProto& body, Scope& scope, std::vector<ValuePtr>& finals);
  // Sets a body graph's formal input types (what its owner passes in), keeping declared dims inference lacks.
  void set_body_inputs(onnx::GraphProto& body, const std::vector<onnx::TypeProto>& types);

  const std::string& file_;
  ShapeResult& result_;
  std::unordered_map<const onnx::GraphProto*, std::vector<int>>& order_;
  ShapeRegistry registry_;
  const ValueOpRegistry& values_registry_;
  std::unordered_map<std::string, int> opsets_;
  int ir_version_ = 0;
  std::deque<onnx::TypeProto> arena_;     // stable addresses for the TypeMaps
  std::deque<onnx::TensorProto> tensors_; // stable addresses for computed values handed to libonnx
  std::unordered_map<std::string, onnx::TensorShapeProto> generated_;
  onnx::shape_inference::SymbolTableImpl symbols_;
  SymTable syms_;                         // dim_param texts rooflens wrote -> their expressions
  // Each body's formal input types as the file declared them, kept before the inference overwrites them.
  std::unordered_map<const onnx::GraphProto*, std::vector<onnx::TypeProto>> declared_inputs_;
  int silent_ = 0;                        // > 0 inside a branch not taken: failures there are not the model's
  int64_t budget_ = 0;                    // node visits left for re-running bodies (fixed points, trip counts)
};

}  // namespace rooflens
