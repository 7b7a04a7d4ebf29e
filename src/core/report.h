#pragma once
// The Report: the one data model that crosses between rooms. Loaders/analysis/backends/importers fill it,
// reporters read it. Its JSON form ("schema": "rooflens.report/1") is documented in docs/report-schema.md
// and round-trips losslessly (write -> read -> write gives the same bytes).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/capacity.h"
#include "core/findings.h"
#include "core/layer_kind.h"
#include "core/memory.h"
#include "core/run_key.h"
#include "core/run_settings.h"

namespace rooflens {

// /2: several backends per report ("backends", runs[].backend, runs[].label); /1 reports are still read.
inline constexpr const char* kReportSchema = "rooflens.report/2";
inline constexpr const char* kReportSchemaV1 = "rooflens.report/1";

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
};

struct Component {                // a library or runtime rooflens used, and its version
  std::string name, version;
};

struct ToolInfo {
  std::string name = "rooflens";
  std::string version;
  std::string command;
  // Written only when known (reports before them round-trip unchanged): the commit rooflens was built from and the
  // libraries it linked (core/build_info.h).
  std::string commit;
  std::vector<Component> built_with;
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

struct MemoryLevel {             // a memory level the bandwidth sweep found (hw/levels.h), per thread count
  std::string level;             // "L1" | "L2" | "L3" | "L4" | "DRAM"
  int64_t threads = 0;
  uint64_t first_bytes = 0, last_bytes = 0;  // working sets (total over arrays and threads) its plateau spans
  uint64_t reported_bytes = 0;   // the reported cache capacity that agreed with its fall; 0: named from the sweep
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
  std::vector<MemoryLevel> levels;  // where each level's plateau lies on the sweep; empty for datasheets
  std::vector<SweepPoint> sweep;
  std::vector<std::string> notes;
  std::vector<std::string> warnings;  // implausible roofs (hw/plausibility.h); every report shows them
  std::vector<HwError> errors;
};

// ---- profile: measured runs on a backend; see docs/report-schema.md ----

struct LatencyStats {             // milliseconds; percentiles nearest-rank; std is the sample std (n-1)
  int64_t n = 0;
  double min = 0, max = 0, mean = 0, median = 0, p90 = 0, p95 = 0, p99 = 0, std = 0, cv = 0;
};

struct Layer {                    // one kernel of the optimized graph the backend ran
  std::string name, op, provider; // optimized-graph node name and op ("FusedConv", "Conv" in nchwc, ...)
  std::vector<std::string> onnx_nodes;  // the user's nodes this layer computes (owned), or aliases (see alias)
  bool alias = false;             // a layout/copy kernel (NCHWc reorder, inserted Transpose): onnx_nodes it
                                  // serves are owned by another layer; its flops are 0
  double time_ms = 0;             // median over profiled iterations of the kernel's per-iteration time
  double share = 0;               // time_ms / sum of all layers' time_ms
  uint64_t flops = 0, macs = 0, bytes = 0;  // of the owned nodes; bytes = boundary tensors only
  bool cost_known = true;         // false when an owned node's cost is unknown (flops are then a lower bound)
  double intensity = 0, gflops = 0, gbps = 0;
  std::string bound;              // "compute" | "memory" | "" (no roofs)
  double efficiency = 0;          // achieved / attainable at this intensity (0 without roofs)
  std::string roof;               // the ceiling used: "fp32_fma_avx512 x2" or "L2 read x2"
  std::vector<std::vector<int64_t>> input_shapes, output_shapes;  // as the backend reported them
  double start_ms = 0;            // offset of the kernel in the first measured profiled iteration (timeline)
  // Added with lint (written only when known, so older reports round-trip unchanged):
  LayerKind kind = LayerKind::compute;
  Device device = Device::unknown;
  std::vector<std::string> input_dtypes, output_dtypes;  // ONNX dtype names ("float", "float16", "uint8", ...)
  // Added with import (written only when known): what another tool's profile says about the kernel.
  std::optional<double> mean_ms;  // mean over the source's iterations, when it gives one (time_ms is the median,
                                  // or this mean when the source gives no median)
  std::string precision;          // element type it computed in, as an ONNX name ("int8", "float16", "float")
  std::string implementation;     // the kernel the runtime chose (TensorRT tactic, OpenVINO primitive type)
  std::string inserted_for;       // the runtime added it itself: why ("reformat", "quantize", ...)
  bool fallback = false;          // ran on the CPU although the session ran on an accelerator
  uint64_t weight_bytes = 0;      // its weights and biases as the runtime stores them (0: not known)
  // Added with the mapping-truth work (written only when not the default):
  BytesSource bytes_source = BytesSource::analysis;  // where `bytes` comes from
  uint64_t padding_macs = 0;      // of macs: taps in the zero padding, which no kernel need execute; the roofline
                                  // places the layer by flops - 2 x padding_macs (gflops is that work's rate)
  std::string attribution_error;  // the layer's rate exceeds its roof beyond the tolerance: physically impossible,
                                  // so its flops, bytes or ceiling are wrong; why (it is then not drawn on the roof)

  // The work the roofline places it by: its FLOPs without the MACs on zero padding (gflops and efficiency are of
  // this work; views that project a layer's time scale it).
  uint64_t placed_flops() const { return padding_macs > flops / 2 ? 0 : flops - 2 * padding_macs; }
};

struct NodeFate {                 // user nodes that no layer owns
  std::string name, fate;         // fate: "folded" (constant-folded at session creation) | "eliminated"
};

struct PhaseStats {                      // one part of every e2e iteration (imports: "h2d", "compute", "d2h", ...)
  std::string name;
  LatencyStats ms;
};

// `profile --reference REF.onnx`: a fixed model timed in turns with the run, in the same session on the same
// machine (REF, MODEL, MODEL, REF, ...), each repetition of one right beside the same repetition of the other. The
// host's level of the moment touches both alike, so the run's medians over the reference's (core/reference.h) stay
// put when the machine steps 20% faster or slower between sessions, and `history --check` judges that ratio.
struct ReferenceTiming {
  std::string model;                     // the reference's file, as given
  std::string name;                      // its model name, as reports name models
  std::vector<double> latencies_ms;      // its samples, repetition after repetition
  std::vector<int64_t> repetitions;      // samples per repetition: repetition i ran beside the run's repetition i
};

struct ProfileRun : RunKey {              // the key: backend, batch, dims, threads (core/run_key.h)
  std::vector<double> latencies_ms;      // raw e2e samples, profiling off (for compare), repetition after repetition
  std::vector<int64_t> repetitions;      // samples per repetition (--repeat: each a fresh runner), in order; they
                                         // partition latencies_ms. Empty (reports before --repeat) = one repetition
  LatencyStats latency_ms;               // over all samples of all repetitions
  double throughput_per_s = 0;           // batch * iterations / wall time
  double wall_s = 0;
  std::string stop_reason;
  double load_ms = 0;
  LatencyStats profiled_latency_ms;      // profiled iterations (profiling on)
  double profiling_overhead = 0;         // profiled mean / plain mean
  double coverage = 0;                   // median over profiled iterations of Σ kernel times / that iteration's run
                                         // (as the runtime timed it); reports before it: Σ layer medians / median run
  std::optional<double> between_kernels_ms;  // median over profiled iterations of run - Σ kernel times: the runtime's
                                         // own time between kernels (the layer tables' last row); absent in older reports
  std::optional<double> profiled_run_ms; // median profiled run as the runtime's own profile timed it (the clock the
                                         // kernels are on); absent in older reports
  uint64_t peak_rss_bytes = 0;
  uint64_t flops = 0, macs = 0;          // analysis totals for these dims
  double gflops = 0;                     // effective: flops / median latency
  std::vector<Layer> layers;             // in execution order
  std::vector<NodeFate> unowned;         // folded / eliminated user nodes
  int64_t unmapped_kernels = 0;          // kernels not mapped to any user node (should be 0)
  std::vector<std::string> warnings;
  std::string layers_error;              // why layer times are missing although asked for (the profiled run
                                         // failed after the timed run succeeded); "" otherwise
  // Added with import (written only when known):
  std::vector<PhaseStats> phases;        // e2e iterations split into parts, as the source timed them
  std::optional<uint64_t> weights_bytes, activations_bytes;  // the engine's weights; Σ of its layers' tensors
  std::optional<ReferenceTiming> reference;  // profile --reference
  // The first repetition timed on a live runner (ProfileOptions::live_timing: turns of `compare` or `--reference`,
  // chunks of one loaded session) instead of a fresh one; absent when every repetition had a fresh runner. Their
  // medians follow the host's spells from chunk to chunk: what pairs them with the other side cancels, not noise
  // between runs.
  std::optional<int64_t> live_from;
  // What the run ran with (core/run_settings.h; written only when known, so older reports round-trip unchanged):
  std::vector<RunSetting> settings;               // every performance option: effective value and its source
  std::optional<ThreadsObserved> threads_observed;  // the runtime's thread pool as its profile showed it
  std::optional<DispatchBreakdown> dispatch;      // where between_kernels_ms goes, as far as the source timed it
  std::optional<RunMemory> memory;                // predicted in the executed order, measured, explained
};

struct Failure : RunKey {                // the configuration that failed
  std::string stage;                     // "load" | "run" | "profile" | "analysis" (where it stopped)
  std::string kind;                      // "error" | "timeout" | "died" | "interrupted"
  std::string message;
  std::string stderr_tail;
};

struct BackendInfo {
  std::string name, version;             // "onnxruntime", "1.30.0"
  std::map<std::string, std::string> options;   // as applied, in the backend's own names
  std::string runtime;                   // e.g. "onnxruntime-node 1.30.0 on node 20.20.2"
  std::string label;                     // how runs name it (RunKey::backend): the name, or the whole -B text
                                         // when a report has two configurations of one backend
};

// ---- whatif: a projection of measured runs onto other ceilings, a dtype, a batch, sparsity (src/whatif/) ----

struct LayerProjection {          // one layer of a run, projected
  std::string name;               // runs[].layers[].name
  double time_ms = 0;             // projected median time
  double flops = 0, bytes = 0;    // the work assumed on the target (changes with --batch / --quantize)
  double intensity = 0, gflops = 0;  // where the projected layer sits on the target's roofline
  std::string bound, roof;        // on the target ("" when the layer kept its measured time)
  double attainable = 0;          // GFLOP/s (GB/s for FLOP-free layers) the target allows at this intensity
  bool bound_changed = false;     // bound differs from the measured layer's
  std::string note;               // why the layer was not projected, or which perf ratio applied
};

struct RunProjection {
  std::string run;                // the measured run's label
  double measured_ms = 0;         // e2e median, profiling off
  double projected_ms = 0;        // measured_ms x (projected layers + gap) / (measured layers + gap)
  double layers_measured_ms = 0, layers_projected_ms = 0;
  double gap_ms = 0;              // profiled run median - sum of layer medians, kept as is (not projected)
  std::vector<LayerProjection> layers;  // same order as the run's layers
  std::optional<MemoryProjection> memory;  // when the run has a memory prediction
};

struct Projection {
  std::vector<std::string> modes; // "roofs" | "device" | "threads" | "quantize" | "batch" | "sparse", as applied
  std::string target;             // one line: "NVIDIA A100 SXM4 80GB (datasheet), int8"
  std::vector<std::string> assumptions;  // every assumption the numbers rest on, in words
  std::optional<HardwareInfo> hardware;  // the target's ceilings when they are not the report's own
  std::vector<RunProjection> runs;
};

// ---- generation: a decoder language model measured per phase (`rooflens generate`); docs/report-schema.md ----

// One layer's cache tensors: the past it reads and the present it writes.
struct KvBinding {
  std::string past_key, past_value, present_key, present_value;
};

// The decoder's I/O convention as rooflens detected it from the model (generate/decoder_io.cpp).
struct DecoderIo {
  std::string layout;            // "optimum": past_key_values.N.key|value in, present.N.key|value out
  std::string input_ids, attention_mask, position_ids, logits;  // attention_mask / position_ids: "" when absent
  std::vector<KvBinding> cache;  // one per layer, in layer order
  int64_t kv_heads = 0, head_dim = 0, vocab = 0;
  std::string kv_dtype;          // ONNX name of the cache's element type: "float", "float16"
  std::string ids_dtype, mask_dtype, position_dtype;  // "int64" | "int32" ("" for an absent input)
};

// How each decode step's input token is chosen: the argmax of the previous step's logits, or a fixed seeded id
// sequence (the same in every request and every run, whatever the logits say).
enum class NextToken { greedy, fixed };
enum class Phase { prefill, decode };

// One step measured with the runtime's profiler, its kernels mapped to ONNX nodes and placed on the roofline.
struct PhaseProfile {
  Phase phase = Phase::prefill;
  int64_t tokens = 0;            // tokens per sequence the step feeds (the prompt for the prefill, 1 for decode)
  int64_t past = 0;              // cached tokens per sequence the step attends to besides its own
  std::map<std::string, int64_t> dims;  // every symbolic input dim at this step
  LatencyStats latency_ms;       // the profiled iterations of this step (profiling on)
  double coverage = 0;           // sum of layer medians / median profiled step as the runtime timed it
  uint64_t flops = 0, macs = 0;  // analysis totals at these dims
  std::vector<Layer> layers;     // in execution order
  std::vector<NodeFate> unowned;
  int64_t unmapped_kernels = 0;
  std::vector<std::string> warnings;
};

// TPOT at one context length: the decode steps of every request that attended to `context` tokens per sequence.
struct ContextPoint {
  int64_t context = 0;           // tokens per sequence in the cache after the step (past + 1)
  int64_t n = 0;                 // steps measured at this context
  double tpot_ms = 0;            // their median inter-token latency
  uint64_t kv_bytes = 0;         // KV cache the step reads (its past; all sequences, all layers)
  uint64_t bytes = 0;            // weights + KV the step reads
  double gbps = 0;               // bytes / tpot_ms
};

// Least-squares line tpot = intercept + slope * KV bytes over the per-context series.
struct ContextFit {
  double intercept_ms = 0;
  double ms_per_mb = 0;          // extra ms per 1e6 KV bytes read
  double r = 0;                  // Pearson correlation of TPOT with KV bytes (0 with fewer than 3 contexts)
};

struct GenerationRun {
  int64_t batch = 0, prompt = 0, gen = 0;  // sequences, prompt tokens each, decode steps each
  int64_t threads = 0;                     // intra-op threads the runtime used
  // The run's key as runs and failures share it (core/run_key.h): batch, dims {"gen", "prompt"}, threads; its
  // label ("batch=1 gen=32 prompt=128 threads=2") names the run in tables, the page and compare.
  RunKey key() const;
  NextToken next_token = NextToken::greedy;
  // Raw samples in ms, request after request (warm-up excluded). ttft: feeds ready -> first tokens chosen (the
  // prefill); tpot: each decode step, previous tokens chosen -> its tokens chosen (inter-token latency); e2e: ttft
  // + the request's steps.
  std::vector<double> ttft_samples_ms, tpot_samples_ms, e2e_samples_ms;
  std::vector<int64_t> repetitions;  // requests per repetition (--repeat: each in a fresh runner), in order
  LatencyStats ttft_ms, tpot_ms, e2e_ms;
  double prefill_tokens_per_s = 0, prefill_tokens_per_s_std = 0;  // batch * prompt / ttft, mean ± std over requests
  double decode_tokens_per_s = 0, decode_tokens_per_s_std = 0;    // batch * gen / the request's steps
  std::vector<ContextPoint> by_context;  // ascending context
  ContextFit tpot_vs_kv;
  uint64_t kv_bytes_per_token = 0;  // one token of one sequence, all layers, key + value
  uint64_t kv_bytes_end = 0;        // the cache after the last step: batch * (prompt + gen) tokens
  uint64_t weight_bytes = 0;        // weights one decode step reads (an embedding table only by its gathered rows)
  uint64_t decode_bytes_per_token = 0;  // mean over decode steps of (weights + KV read) / batch
  double decode_gbps = 0;           // sum of bytes / sum of time over every measured decode step
  double dram_gbps = 0;             // the measured DRAM roof at these threads (0 without roofs)
  std::string dram_roof;            // its label, "DRAM read x2"
  double load_ms = 0;
  double wall_s = 0;                // measured requests, first start to last end (summed over repetitions)
  uint64_t peak_rss_bytes = 0;
  std::vector<int64_t> tokens;      // ids generated for the first sequence of the first measured request
  std::vector<PhaseProfile> phases;  // prefill, then decode (when gen > 0); empty with --no-layers
  std::vector<std::string> warnings;
  std::string layers_error;         // the profiled run failed after the timed one succeeded ("" otherwise)
  std::optional<KvMemory> memory;   // weights + KV cache per phase and step (absent in older reports)
};

// A generation run measures two things, named after the run's label wherever they are items of their own
// (compare, the results database): "<label> · TTFT" (a sample per request) and "<label> · TPOT" (per decode step).
inline constexpr const char* kTtftItem = " · TTFT";
inline constexpr const char* kTpotItem = " · TPOT";

// One of those two items: its name, samples, samples per repetition (TTFT: the requests; TPOT: requests x gen) and
// the run's statistics of them.
struct GenerationItem {
  std::string config;
  Phase phase;
  const std::vector<double>* samples_ms;
  std::vector<int64_t> repetitions;
  const LatencyStats* stats;
};
std::vector<GenerationItem> generation_items(const GenerationRun& run);

struct Generation {
  DecoderIo io;
  std::vector<GenerationRun> runs;  // one per prompt x gen x batch configuration that ran, in grid order
};

std::string to_string(NextToken t);
std::string to_string(Phase p);

struct Report {
  std::string schema = kReportSchema;
  ToolInfo tool;
  ModelInfo model;
  std::optional<HardwareInfo> hardware;  // absent in JSON when not measured
  std::vector<BackendInfo> backends;     // profile reports only (with runs and failures); runs name theirs by
                                         // label when there are several
  bool is_profile() const { return !backends.empty(); }
  std::vector<ProfileRun> runs;
  std::vector<Failure> failures;
  std::vector<std::string> warnings;     // report-wide (cost-unknown ops, unstable timings, ...)
  bool partial = false;                  // interrupted: some configurations were not run
  // What rooflens lint concluded (src/lint/); absent = not linted (reports written before lint existed).
  std::optional<std::vector<Finding>> findings;
  std::optional<Projection> whatif;      // rooflens whatif's projection of these runs, when one was made
  std::optional<Generation> generation;  // `rooflens generate` reports only; their failures are in `failures`
  std::optional<CapacityResult> capacity;  // `rooflens capacity` reports only (core/capacity.h)
};

std::string report_to_json(const Report& r, int indent = 2);
// Throws std::runtime_error with a one-line message on malformed input or a foreign schema.
Report report_from_json(const std::string& text);
// The hardware section alone (the `rooflens hw` cache and --roofs files may hold just this object).
std::string hardware_to_json(const HardwareInfo& h, int indent = 2);
// Accepts a whole report carrying "hardware" or the bare hardware object; throws UserError when malformed.
HardwareInfo hardware_from_json(const std::string& text);

}  // namespace rooflens
