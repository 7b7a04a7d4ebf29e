#pragma once
// What a lint rule sees of one run (computed once per run, shared by all rules) and how it reports.
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/report.h"
#include "lint/lint.h"

namespace rooflens {

// The precision a run computes in: int8 when the model holds quantization ops (QuantizeLinear, DequantizeLinear,
// QLinear*, *Integer) or a computing layer read an integer type; fp16 when most matmul-class FLOPs (of the model's
// nodes, or of the run's layers) read float16/bfloat16; else fp32.
enum class ModelPrecision { fp32, fp16, int8 };
const char* to_string(ModelPrecision p);

// The run's layers as a graph: a layer's successors are the layers owning a node that reads a tensor one of its
// own nodes writes. Alias layers (layout/copy kernels that own no node) have no edges.
struct LayerGraph {
  std::vector<std::vector<size_t>> succ, pred;   // by layer index, sorted, unique
};

struct RunFacts {
  const Report& report;
  const ProfileRun& run;
  std::string label;                              // run.label()
  double layer_ms = 0;                            // sum of the layers' time_ms
  ModelPrecision precision = ModelPrecision::fp32;
  std::unordered_map<std::string, size_t> node_index;   // analysis node name -> index in model.analysis.nodes
  std::vector<int> node_layer;                    // analysis node index -> owning layer index, -1 none
  LayerGraph graph;

  RunFacts(const Report& r, const ProfileRun& run);
  const NodeAnalysis* node(const std::string& name) const;
  // The dtype a layer computes in: its first input's as the runtime reported it, else its first owned node's.
  std::string compute_dtype(const Layer& l) const;
  double share_of(double ms) const { return layer_ms > 0 ? ms / layer_ms : 0; }
};

// Collects a rule's findings with the rule id, run label and link already filled.
class FindingSink {
 public:
  FindingSink(const LintRule& rule, std::string run, std::vector<Finding>& out)
      : rule_(rule), run_(std::move(run)), out_(out) {}
  Finding& add(Severity severity, std::string title);
 private:
  const LintRule& rule_;
  std::string run_;
  std::vector<Finding>& out_;
};

// Helpers rules share.
double sum_ms(const ProfileRun& run, const std::vector<size_t>& layers);
// Fills f.layers (most time first) and f.onnx_nodes (their owned or served nodes, in that order) from indices.
void name_layers(Finding& f, const ProfileRun& run, std::vector<size_t> layers);
std::string pct(double ratio);                    // 0.1234 -> "12.3%"
std::string ms_text(double ms);                   // "1.234 ms"
bool is_float_dtype(const std::string& dtype);    // "float", "double" (32/64-bit floats)
bool is_low_precision_dtype(const std::string& dtype);  // float16, bfloat16, int8, uint8, int4, uint4, float8*
// A QuantizeLinear / DequantizeLinear layer: by its ONNX op, or by what it does (a layer computing nothing that
// turns float into an integer type, or back), for runtimes that run the user's Q/DQ under their own op name.
bool is_quantize(const Layer& l);
bool is_dequantize(const Layer& l);

// One registry line per family (each defined in its rules_<family>.cpp).
using RuleList = std::vector<LintRule>;
void add_placement_rules(RuleList& rules);
void add_layout_rules(RuleList& rules);
void add_quantization_rules(RuleList& rules);
void add_fusion_rules(RuleList& rules);
void add_timing_rules(RuleList& rules);
void add_setup_rules(RuleList& rules);
void add_memory_rules(RuleList& rules);
void add_accuracy_rules(RuleList& rules);

}  // namespace rooflens
