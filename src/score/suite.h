#pragma once
// The suite: what `rooflens score` runs and what it scores against (docs/score.md). One JSON file per version,
// data/score/v<N>/suite.json, linked into the binary (suite_data.cpp) so nothing is read at run time; `--suite FILE`
// reads another (tests, a regenerated one). It holds the workloads (one entry each: a zoo model, a precision, its
// sizes and seed), how long each mode measures, the tolerances per precision, and per workload the reference
// outputs (ONNX Runtime, graph optimizations disabled, seeded inputs) and, per mode, the reference constants (the
// times and roof times measured once on the reference configuration) with the harness fingerprint they were
// measured with (harness.h).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/report_hardware.h"
#include "core/score.h"
#include "validation/allclose.h"

namespace rooflens::score {

// How long a mode measures each workload.
struct ModeSettings {
  int64_t repetitions = 3;           // per workload; each a fresh pool of runners
  double offline_seconds = 3;        // each offline run lasts at least this
  int64_t offline_min_queries = 8;   // ...and answers at least this many queries
  int64_t generate_requests = 3;     // decoders: measured requests per repetition
  int64_t latency_queries = 64;      // single-stream queries per repetition, exactly (the latency figure is their
                                     // p90); 64, the fewest MLPerf's early stopping allows, when a file omits it (v1)
};

// "full" or "quick": how a mode is named in the suite file and the harness.
std::string mode_name(bool quick);

// A reference output: the shape in full, and the values of an evenly spaced subset (every element when the output
// is small) so the suite file stays small: element k of `values` is flat element k × stride.
struct OutputSample {
  std::string name;
  int32_t data_type = 1;             // ONNX TensorProto.DataType (float outputs only so far)
  std::vector<int64_t> shape;
  int64_t stride = 1;
  std::vector<double> values;
};

// The reference constants of one figure, measured on the reference configuration.
struct FigureReference {
  double time_ms = 0;                // ms per unit (latency ms, or 1000 / rate)
  double roof_time_ms = 0;           // t_roof per unit on the reference machine's roofs (0: not known)
};

// The reference constants of one mode as a whole: where and with what harness they were measured.
struct ModeConstants {
  std::string configuration;         // the machine, runtime and rooflens they were measured on
  std::map<std::string, std::string> harness;  // the harness fingerprint (harness.h) of that measurement; empty:
                                               // not recorded (suite v1)
  bool provisional = false;          // written while the suite was made, on a shared machine: a placeholder until
                                     // the reference configuration measures them (scores against them say so)
};

// A figure's reference constants by mode ("full", "quick"), then by metric ("latency", "throughput", "prefill",
// "decode").
using FigureConstants = std::map<std::string, std::map<std::string, FigureReference>>;

struct WorkloadDef {
  std::string id;                    // unique: "resnet50-int8"
  std::string kind;                  // "served" (single-stream + offline via capacity) | "decoder" (generate)
  std::string model;                 // zoo name
  std::string precision;             // "fp32" | "int8" | "fp16"
  bool quick = false;                // part of --quick
  uint64_t seed = 1;                 // weights and inputs
  int64_t image = 0, seq = 0;        // zoo sizes (0: the model's default)
  std::map<std::string, int64_t> decoder;  // DecoderConfig overrides: layers, hidden, heads, kv_heads, ffn, vocab
  int64_t prompt = 0, gen = 0;       // decoders: prompt tokens, decode steps
  bool reduce_range = false;         // int8: 7-bit weights (zoo/quantize.h), so CPUs without VNNI compute the
                                     // integers CPUs with it do (false in v1: full-range weights)
  std::string test_hook;             // TEST ONLY, honoured with ROOFLENS_TEST_HOOKS=1: "segv" | "sigkill" | "hang"
                                     // makes the runtime fail while validating (backends/fault_injection.h)
  // reference
  std::vector<OutputSample> outputs;             // served kinds
  std::vector<std::vector<int64_t>> tokens;      // decoders: the greedy tokens per sequence
  FigureConstants figures;           // by mode, then metric
};

struct Suite {
  std::string version = "v2";
  std::string reference_configuration;  // the machine, runtime and rooflens the references and roofs came from
  std::optional<HardwareInfo> reference_roofs;  // that machine's measured roofs (`score --project` scales from them)
  std::vector<std::string> categories;  // in order
  std::map<std::string, Tolerance> tolerances;  // by precision
  ModeSettings full, quick;
  std::map<std::string, ModeConstants> constants;  // by mode: how its figures' constants were measured
  std::vector<WorkloadDef> workloads;   // in order

  const ModeSettings& mode(bool quick_mode) const { return quick_mode ? quick : full; }
};

// The suite built into this rooflens (data/score/v2/suite.json).
const Suite& builtin_suite();
// Reads and validates a suite file: a one-line UserError naming the field (and `what`, the file) when malformed.
Suite parse_suite(const std::string& text, const std::string& what);
std::string suite_to_json(const Suite& s);

// The category a workload's figure belongs to: "<precision> <latency|throughput>", decoders' "generative".
std::string category_of(const WorkloadDef& w, const std::string& metric);
// The metrics a workload kind yields, in order.
std::vector<std::string> metrics_of(const WorkloadDef& w);
// The unit a metric's raw figures are in: "ms" (latency), "samples/s" (throughput), "tokens/s" (prefill, decode).
std::string unit_of(const std::string& metric);
// An empty figure of the workload's metric: its metric, category, unit and the suite's reference constants of
// the mode (none when the suite has none for it: the figure is then not scored).
ScoreFigure figure_of(const WorkloadDef& w, const std::string& metric, bool quick);
// The workload's reference constants of a mode and metric; null when the suite has none.
const FigureReference* reference_of(const WorkloadDef& w, bool quick, const std::string& metric);

}  // namespace rooflens::score
