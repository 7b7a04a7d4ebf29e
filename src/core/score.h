#pragma once
// The result of `rooflens score` (a hardware AI benchmark score, docs/score.md): a fixed, versioned suite of zoo
// workloads measured on one machine (or projected onto a datasheet device), validated against the suite's
// reference outputs, scored against the suite's reference constants, aggregated by geometric means and explained
// as roof ratio × efficiency. Written by src/score/, read by `score --from`, the results database, `score --list`
// and the leaderboard. Its JSON form ("schema": "rooflens.score/1", core/score_json.h) round-trips byte for byte.
//
// Words: a workload is one zoo model at one precision; a figure is one thing a workload is scored on (single-stream
// latency, offline throughput, prefill or decode tokens/s), and every figure belongs to one category ("fp32
// latency", "fp32 throughput", "int8 latency", "int8 throughput", "generative"). A repetition is one measurement of
// every figure of a workload (a fresh pool of runners each time).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/report_hardware.h"
#include "core/report_run.h"
#include "core/tool_info.h"

namespace rooflens {

inline constexpr const char* kScoreSchema = "rooflens.score/1";

// valid: outputs matched the references, figures scored. invalid: outputs did not match (JSON "INVALID"): no
// score from wrong outputs. failed: the workload could not be measured (runtime error, crash, timeout, Ctrl-C).
// unsupported: the runtime cannot run the precision natively (never silently converted).
enum class WorkloadStatus { valid, invalid, failed, unsupported };
std::string to_string(WorkloadStatus s);  // "valid", "INVALID", "failed", "unsupported"
std::optional<WorkloadStatus> workload_status_from_string(const std::string& s);

// A 95% confidence interval of a score. Both 0 when it cannot be given (one repetition, nothing valid).
struct ScoreInterval {
  double low = 0, high = 0;
};

// Who ran the suite: what the leaderboard tells machines apart by (the report's environment: tool, machine,
// runtime).
struct ScoreMachine {
  MachineDesc machine;            // CPU model, sockets/cores/threads, ISA features, memory, OS and kernel (hw/)
  int64_t cores_used = 0;         // physical cores the suite ran on (rooflens' affinity mask)
  ToolInfo tool;                  // rooflens version, commit, libraries it was built with
  BackendInfo runtime;            // the runtime measured: "onnxruntime" 1.30.0, its runtime text and options
  std::string roofs;              // where the decomposition's roofs came from: "measured" | "cached" | "datasheet" |
                                  // "" (no roofs: no decomposition)
};

// The roof that bounds one figure on one machine: t_roof = max(flops / compute roof, bytes / memory roof), per unit
// of the figure (a sample, a prompt's prefill, a generated token), for the cores the figure used.
struct RoofBound {
  double flops = 0;               // per unit, from the analysis (int8 matmul-class work counts as int8 operations)
  double bytes = 0;               // per unit: boundary tensors + weights (decode: the weights a step reads)
  std::string compute_roof;       // label of the compute roof used ("fp32_fma_avx2 x2"); "" when none
  double compute_gflops = 0;
  std::string memory_roof;        // "DRAM read x2"; "" when none
  double memory_gbps = 0;
  std::string bound;              // "compute" | "memory" | "" (no roofs)
  double time_ms = 0;             // t_roof per unit; 0 when no roofs
};

// One scored figure of a workload.
struct ScoreFigure {
  std::string metric;             // "latency" | "throughput" | "prefill" | "decode"
  std::string category;           // "fp32 latency", "fp32 throughput", "int8 latency", "int8 throughput", "generative"
  std::string unit;               // unit of `value` and `repetitions`: "ms" (latency) | "samples/s" | "tokens/s"
  std::vector<double> repetitions;  // the raw figure of each repetition, in run order (what --from recomputes from)
  double value = 0;               // the central figure: geometric mean of the repetitions
  double time_ms = 0;             // the same as a time per unit (latency: ms; rates: 1000 / value)
  double reference_time_ms = 0;   // the suite's constant for this figure (measured on the reference configuration)
  std::string config;             // how it was measured: "single-stream p90 (early stopping)",
                                  // "offline instances=2 threads=1", "prompt 32, 16 new tokens"
  double drift = 0;               // last repetition's time / first's - 1 (+0.05: the last was 5% slower)
  bool drift_beyond_ci = false;   // |log(score_last / score_first)| exceeds the score's 95% half-width (log scale)
  double score = 0;               // reference_time_ms / time_ms × 1000; 0 unless the workload is valid
  ScoreInterval ci;
  RoofBound roof;                 // on this machine
  double reference_roof_time_ms = 0;  // t_roof on the reference configuration (suite constant)
  double roof_ratio = 0;          // reference_roof_time_ms / roof.time_ms: how much faster this machine's roof is
  double efficiency = 0;          // (score / 1000) / roof_ratio: the share of its roof achieved, against the
                                  // reference's share. 0 (with roof_ratio) when no roofs
};

struct ScoreWorkload {
  std::string id;                 // "resnet50-int8": unique in the suite
  std::string model;              // zoo name ("resnet50")
  std::string precision;          // "fp32" | "int8" | "fp16"
  std::string shape;              // what one unit is: "1x3x224x224", "seq 128", "prompt 32 + 16 tokens"
  WorkloadStatus status = WorkloadStatus::failed;
  std::string reason;             // why not valid ("" when valid): the validation message, the error, the cause
  double max_abs_error = 0;       // against the reference outputs (0 when not compared)
  double max_rel_error = 0;
  std::string tolerance;          // what was required: "rtol 0.001 atol 0.0001", "greedy tokens equal"
  std::vector<ScoreFigure> figures;
  double seconds = 0;             // wall time the workload took (validation + repetitions)
};

// A category or the overall score: a geometric mean of the figures' (categories') scores.
struct ScoreAggregate {
  std::string name;               // the category's name, or "overall"
  double score = 0;               // geometric mean over what is valid; 0 when nothing is
  ScoreInterval ci;
  double roof_ratio = 0, efficiency = 0;  // geometric means; roof_ratio × efficiency = score / 1000
  int64_t members = 0, valid_members = 0;  // figures (categories, for overall) in the suite and valid here
  bool incomplete = false;        // a member is INVALID, failed or unsupported (the score covers fewer members)
  std::string explanation;        // one line: "int8 throughput 0.62× the reference: int8 roof 0.5×, efficiency 1.24×"
};

struct ScoreResult {
  std::string schema = kScoreSchema;
  std::string suite = "v1";       // suite version ("v1"); scores of different suites are never compared
  bool quick = false;             // --quick: a subset with shorter runs; never compared with a full score
  std::string kind = "measured";  // "measured" | "projected" (score --project DEVICE: never ranked unlabelled)
  std::string device;             // projected: the datasheet device; measured: "" (the machine below)
  std::string created_at;         // ISO 8601 UTC
  ScoreMachine machine;
  int64_t repetitions = 0;        // asked per workload
  std::string ci_method;          // how intervals are computed (t-based on log scores over repetitions)
  std::map<std::string, std::string> harness;  // measured: the harness fingerprint the figures were measured with
                                               // (score/harness.h); empty in results before suite v2 and projections
  std::vector<ScoreWorkload> workloads;  // in suite order
  std::vector<ScoreAggregate> categories;  // in suite order
  ScoreAggregate overall;
  bool partial = false;           // interrupted (Ctrl-C): the workloads after it are failed "not run"
  double seconds = 0;             // wall time of the whole suite
  std::vector<std::string> warnings;
};

// One row of a projection's calibration: a projected score of a machine against its measured score, per category or
// overall; error = projected / measured - 1 (whatif/score_projection.h computes the rows, reporters show them).
struct CalibrationRow {
  std::string name;
  double projected = 0, measured = 0, error = 0;
};

// JSON (core/score_json.cpp). The reader validates: one-line UserError naming the field on anything malformed.
std::string score_to_json(const ScoreResult& r, int indent = 2);
ScoreResult score_from_json(const std::string& text);

}  // namespace rooflens
