#pragma once
// The report's model section (`model`, core/report.h): the file, its inputs and outputs, and the static analysis —
// per node, per op type, per subgraph body, and the totals.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/int8_kernels.h"
#include "core/memory.h"

namespace rooflens {

struct TensorSummary {
  std::string name;
  std::string dtype;              // "float", "int64", ...
  std::vector<int64_t> shape;     // -1 for an unresolved dim
  std::vector<std::string> dim_names;  // symbolic names as declared in the model ("" when none)
};

// Whether a node's cost counts towards the totals (control flow decides; see docs/report-schema.md).
enum class NodeExecution {
  Run,         // runs (`iterations` times per inference); counted
  NotTaken,    // in an If branch that the computed condition does not select: never runs, zero cost
  NotCounted,  // in the cheaper branch of an If whose condition is unknown: analysed, cost shown, not in totals
};

// Where a node's shapes came from.
enum class ShapeSource {
  Static,   // static resolution (the analysis)
  Runtime,  // some shapes the analysis could not resolve were taken from the runtime's profile (`profile`)
};

struct NodeAnalysis {
  int64_t index = 0;        // position in the report's node list (topological, subgraphs after their parent)
  std::string name, op, domain;
  std::string graph;        // "main" or the subgraph path
  std::vector<std::string> inputs, outputs;
  std::vector<std::vector<int64_t>> input_shapes, output_shapes;  // -1 = unresolved dim
  std::vector<std::string> input_dtypes, output_dtypes;
  uint64_t flops = 0, macs = 0, params = 0, bytes_read = 0, bytes_written = 0;
  double intensity = 0;     // flops / (bytes_read + bytes_written)
  bool cost_known = true;
  bool shapes_resolved = true;
  std::string note;
  // Added with control flow (optional in JSON, written only when not the default):
  NodeExecution execution = NodeExecution::Run;
  int64_t iterations = 1;   // runs per inference (Loop/Scan trips of the enclosing bodies, multiplied; -1 unknown);
                            // flops, macs and bytes above already include them
  ShapeSource shape_source = ShapeSource::Static;
  // Added with the mapping-truth work (written only when not the default):
  std::vector<uint64_t> input_read_bytes;  // per input, bytes it reads, when some input is read only in part (Gather
                                           // reads the rows it gathers); empty: every input whole (input_shapes)
  uint64_t padding_macs = 0;               // of macs: those whose tap falls on the zero padding (cost.h)
};

// One subgraph body (If branch, Loop/Scan body) with the totals of its nodes and of the bodies nested in it.
struct SubgraphSummary {
  std::string graph;              // its path, as NodeAnalysis::graph names it
  std::string node;               // the node that owns it
  std::string attribute;          // which of the owner's attributes holds it: "then_branch", "else_branch", "body"
  NodeExecution execution = NodeExecution::Run;
  int64_t iterations = 1;         // runs per inference (-1 unknown)
  int64_t nodes = 0;
  uint64_t flops = 0, macs = 0, bytes_read = 0, bytes_written = 0;  // as counted in the nodes (0 when not taken)
};

struct OpTypeSummary {
  std::string op, domain;
  int64_t count = 0;
  uint64_t flops = 0, macs = 0, params = 0, bytes_read = 0, bytes_written = 0;
  int64_t unknown = 0;      // nodes of this type whose cost is unknown
};

struct Totals {
  uint64_t flops = 0, macs = 0, params = 0, bytes_read = 0, bytes_written = 0;
  int64_t nodes = 0, unknown_cost_nodes = 0, unresolved_nodes = 0;
  double intensity = 0;
};

struct Analysis {
  Totals totals;
  std::vector<NodeAnalysis> nodes;
  std::vector<OpTypeSummary> op_types;      // sorted by flops, descending
  std::vector<std::string> unknown_ops;     // "domain:op" whose cost is unknown (sorted, unique)
  std::vector<std::string> notes;           // assumptions made ("batch defaulted to 1", ...)
  std::vector<SubgraphSummary> subgraphs;   // every subgraph body, in node-list order (optional in JSON)
};

struct ModelInfo {
  std::string path, name;
  uint64_t file_bytes = 0;
  int64_t ir_version = 0;
  std::string producer_name, producer_version;
  std::map<std::string, int64_t> opsets;    // "ai.onnx" -> 17, "com.microsoft" -> 1
  std::vector<TensorSummary> inputs, outputs;
  int64_t initializers = 0;
  int64_t constant_tensors = 0;             // Constant nodes' value tensors, weights like initializers (optional in JSON)
  uint64_t weight_bytes = 0;                // initializers and constant tensors
  Analysis analysis;
  std::optional<ModelMemory> memory;        // predicted need at the analysis' dims (absent in older reports)
  std::optional<Int8Weights> int8_weights;  // the int8 weights of its integer matmuls (core/int8_kernels.h); profile
                                            // writes it for models that have some
};

}  // namespace rooflens
