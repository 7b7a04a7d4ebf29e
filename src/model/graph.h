#pragma once
// rooflens' own view of an ONNX model after loading and shape resolution: plain structs that the
// analysis and reporters read. Nothing here depends on protobuf or libonnx.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/tensor.h"

namespace rooflens {

struct Attribute {
  enum class Kind { Undefined, Float, Int, String, Tensor, Graph, Floats, Ints, Strings, Other };
  std::string name;
  Kind kind = Kind::Undefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  TensorInfo tensor;    // for Tensor attributes (Constant value): type and dims only
  int graph = -1;       // for Graph attributes: index into Model::graphs
};

// The default ONNX domain has two spellings, "" and "ai.onnx"; tables keyed on a domain use "".
inline std::string canonical_domain(const std::string& domain) { return domain == "ai.onnx" ? std::string() : domain; }

struct Node {
  std::string name;    // never empty: unnamed nodes get "<op>_<index>"
  std::string op;
  std::string domain;  // "" for the default ONNX domain
  int opset = 0;       // opset version imported for this node's domain
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;
  std::vector<Attribute> attrs;

  const Attribute* attr(const std::string& name) const;
  int64_t attr_i(const std::string& name, int64_t def) const;
  float attr_f(const std::string& name, float def) const;
  std::string attr_s(const std::string& name, const std::string& def) const;
  std::vector<int64_t> attr_ints(const std::string& name) const;
  std::vector<int> subgraphs() const;  // Model::graphs indices of this node's bodies
};

// A weight or constant: metadata plus where its bytes live. Payloads are never copied at load time.
struct Initializer {
  std::string name;
  DType dtype = DType::Undefined;
  std::vector<int64_t> dims;
  int64_t elements = 0;
  // Location of the payload: in the model file (offset/length into the mapping) or an external file
  // that the loader has verified lies inside the model's directory.
  std::string external_file;  // empty: inside the model file
  uint64_t offset = 0;
  uint64_t length = 0;
  std::vector<int64_t> int_values;  // small integer tensors (shape constants), read eagerly
  std::string constant_node;        // held in this Constant node's `value` attribute ("": a graph initializer)
};

// How a subgraph body runs per run of the node that owns it, as shape resolution determined it.
enum class BodyRun {
  Always,    // the main graph, Loop/Scan bodies, bodies of other ops
  Taken,     // an If branch whose condition was computed and selects it
  NotTaken,  // an If branch whose condition was computed and selects the other: it never runs
  Unknown,   // an If branch whose condition is not computable: both branches were analysed
};

struct Graph {
  std::string name;
  int parent_graph = -1;  // -1 for the main graph
  int parent_node = -1;   // node index in parent graph owning this body
  std::string path;       // "main", "main/loop_1:body", ... shown in reports
  std::string attribute;  // the owner's attribute holding this body ("then_branch", "body"); "" for main
  BodyRun run = BodyRun::Always;
  int64_t trips = 1;      // times the body runs per run of its owner: Loop/Scan iterations (-1: unknown)
  std::vector<Node> nodes;  // in topological order
  std::vector<std::string> inputs;   // graph inputs that are not initializers
  std::vector<std::string> outputs;
  std::unordered_map<std::string, TensorInfo> tensors;  // every value seen in this graph
  // name -> Model::initializers index: initializers, and the tensors of this graph's Constant nodes (weights
  // exported as Constant nodes count like initializers do)
  std::unordered_map<std::string, int> initializers;

  const TensorInfo* find(const std::string& name) const;  // this graph only; outer scope via Model
};

struct Model {
  std::string path;
  uint64_t file_bytes = 0;
  int64_t ir_version = 0;
  std::string producer_name, producer_version, graph_name;
  std::map<std::string, int> opsets;  // domain ("" = ai.onnx) -> version
  std::vector<Graph> graphs;          // graphs[0] is the main graph
  std::vector<Initializer> initializers;
  std::vector<std::string> notes;     // e.g. "batch defaulted to 1"
  std::map<std::string, int64_t> input_symbols;  // symbolic input dims and the sizes overrides gave them
  std::map<std::string, std::vector<double>> input_values;  // contents given to inputs (--value)
  int64_t batch_dims = 0;             // dynamic leading input dims that took the batch size

  // Looks a value up in graph g, then in its enclosing scopes.
  const TensorInfo* find_tensor(int g, const std::string& name) const;
  const Initializer* find_initializer(int g, const std::string& name) const;
};

}  // namespace rooflens
