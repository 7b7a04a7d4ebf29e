#pragma once
// The report's generation section (`generation`, core/report.h): a decoder language model measured per phase by
// `rooflens generate`; docs/report-schema.md.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/memory.h"
#include "core/report_layer.h"
#include "core/report_run.h"
#include "core/run_key.h"

namespace rooflens {

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
  // The engine whose roofs its layers meet (ProfileRun::roofs_engine: "wasm:node", "wasm:chromium"); empty: the CPU's.
  std::string roofs_engine;
};

// TPOT at one context length: the decode steps of every request that attended to `context` tokens per sequence.
// A decode step with at most this many minor page faults counts as one without them for the TPOT-vs-context series:
// 32 KiB of fresh pages, ~0.1 ms on a 2-vCPU KVM guest (12-14 us a fault), against whole pages of KV or logits copies
// (hundreds a step) when the binding's copies land on fresh memory (docs/memory.md).
constexpr int64_t kQuietStepFaults = 8;

// The KV growth over a TPOT series below which its slope is not stated: 5% of a step's bytes, about what the median
// of a handful of decode steps per context resolves on a quiet machine.
constexpr double kResolvableKvShare = 0.05;

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
  // Warm-up requests that ran, over the repetitions: at least --warmup each, more while requests still got faster
  // (absent in reports written before it was recorded).
  std::optional<int64_t> warmup_requests;
  // Per decode step, beside tpot_samples_ms, the runner process's minor page faults in it (empty when not counted),
  // and their mean: a step that touches fresh memory pays a fault per 4 KiB page inside its time.
  std::vector<int64_t> step_page_faults;
  std::optional<double> page_faults_per_step;
  // Per request, beside ttft_samples_ms, the minor page faults of its prefill (empty when not counted), and their mean.
  std::vector<int64_t> prefill_page_faults;
  std::optional<double> page_faults_per_prefill;
  LatencyStats ttft_ms, tpot_ms, e2e_ms;
  double prefill_tokens_per_s = 0, prefill_tokens_per_s_std = 0;  // batch * prompt / ttft, mean ± std over requests
  double decode_tokens_per_s = 0, decode_tokens_per_s_std = 0;    // batch * gen / the request's steps
  std::vector<ContextPoint> by_context;  // ascending context
  // Decode steps by_context (and its fit) left out for taking more than kQuietStepFaults page faults: the series uses
  // the steps without them when every context has one (absent: every step was used).
  std::optional<int64_t> by_context_faulted_steps;
  ContextFit tpot_vs_kv;
  // How far the series' KV reads grow, as a share of what a step reads on average (weights + KV): the TPOT change the
  // fit could see if a step's time followed its bytes. Below kResolvableKvShare the slope is noise and not stated.
  // Absent in reports written before it (and without a series).
  std::optional<double> by_context_kv_share;
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

}  // namespace rooflens
