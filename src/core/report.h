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

// ---- hardware: the machine and its measured (or user-supplied) ceilings; see docs/report-schema.md ----

struct CacheInfo {
  std::string level;            // "L1d", "L2", "L3"
  uint64_t size_bytes = 0;      // one instance
  int64_t instances = 0;        // how many of them the machine has
  int64_t cores_sharing = 0;    // cores that share one instance
};

struct MachineDesc {
  std::string vendor, model;
  int64_t sockets = 0, cores = 0, threads = 0, numa_nodes = 0;
  uint64_t memory_bytes = 0;
  double mhz = 0;               // nominal/max frequency if readable, else 0
  std::string os, kernel;
  std::vector<std::string> isa; // cpuid features usable here (OS-enabled register state included)
  std::vector<CacheInfo> caches;
};

struct ComputeRoof {
  std::string name, isa, dtype;  // "fp32_fma_avx512", "avx512", "fp32"
  int64_t threads = 0;
  double gflops = 0;             // giga-operations per second (for int8: multiply and add each count as one)
};

struct MemoryRoof {
  std::string level, kernel;     // "L1" | "L2" | "L3" | "DRAM"; "read" | "write" | "copy" | "triad"
  int64_t threads = 0;
  double gbps = 0;               // 1e9 bytes/s, bytes counted as STREAM counts them
  uint64_t working_set_bytes = 0;
};

struct SweepPoint {
  std::string kernel;
  int64_t threads = 0;
  uint64_t working_set_bytes = 0;
  double gbps = 0;
};

struct HwError {
  std::string benchmark;         // which sub-benchmark failed ("compute fp32_fma_avx512 x2", ...)
  std::string message;
};

struct HardwareInfo {
  std::string source = "measured";  // "measured" | "datasheet"
  std::string cache_key;            // CPU model + core count + rooflens version ("" for datasheets)
  std::string measured_at;          // ISO 8601 UTC, "" for datasheets
  bool quick = false;               // measured with --quick (fewer kernels and points)
  MachineDesc machine;
  std::vector<ComputeRoof> compute;
  std::vector<MemoryRoof> memory;
  std::vector<SweepPoint> sweep;
  std::vector<std::string> notes;
  std::vector<HwError> errors;
};

struct Report {
  std::string schema = kReportSchema;
  ToolInfo tool;
  ModelInfo model;
  std::optional<HardwareInfo> hardware;  // absent in JSON when not measured
};

std::string report_to_json(const Report& r, int indent = 2);
// Throws std::runtime_error with a one-line message on malformed input or a foreign schema.
Report report_from_json(const std::string& text);
// The hardware section alone (the `rooflens hw` cache and --roofs files may hold just this object).
std::string hardware_to_json(const HardwareInfo& h, int indent = 2);
// Accepts a whole report carrying "hardware" or the bare hardware object; throws UserError when malformed.
HardwareInfo hardware_from_json(const std::string& text);

}  // namespace rooflens
