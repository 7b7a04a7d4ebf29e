#pragma once
// The Report: the one data model that crosses between rooms. Loaders/analysis/backends/importers fill it,
// reporters read it. Its JSON form ("schema": "rooflens.report/1") is documented in docs/report-schema.md
// and round-trips losslessly (write -> read -> write gives the same bytes).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rooflens {

inline constexpr const char* kReportSchema = "rooflens.report/1";

struct TensorSummary {
  std::string name;
  std::string dtype;              // "float", "int64", ...
  std::vector<int64_t> shape;     // -1 for an unresolved dim
  std::vector<std::string> dim_names;  // symbolic names as declared in the model ("" when none)
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
};

struct ModelInfo {
  std::string path, name;
  uint64_t file_bytes = 0;
  int64_t ir_version = 0;
  std::string producer_name, producer_version;
  std::map<std::string, int64_t> opsets;    // "ai.onnx" -> 17, "com.microsoft" -> 1
  std::vector<TensorSummary> inputs, outputs;
  int64_t initializers = 0;
  uint64_t weight_bytes = 0;
  Analysis analysis;
};

struct ToolInfo {
  std::string name = "rooflens";
  std::string version;
  std::string command;
};

struct Report {
  std::string schema = kReportSchema;
  ToolInfo tool;
  ModelInfo model;
};

std::string report_to_json(const Report& r, int indent = 2);
// Throws std::runtime_error with a one-line message on malformed input or a foreign schema.
Report report_from_json(const std::string& text);

}  // namespace rooflens
