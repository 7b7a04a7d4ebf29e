#pragma once
// OrtRunner: the typed API over the ONNX Runtime runner (runners/ort/run.mjs, protocol in
// docs/runner-protocol.md). One OrtRunner = one child process = at most one loaded model.
//
//   OrtRunner runner;                                   // spawns node, checks versions (hello)
//   auto info = runner.load("m.onnx", opts);            // inference session with profiling off
//   auto timed = runner.run_timed(inputs, timing, t);   // e2e latencies, warm-up excluded
//   auto prof = runner.run_profiled(inputs, timing, t); // a second, profiled inference session; parsed events
//
// Every failure throws RunnerError (a UserError: one-line what() naming the model file). Its kind says what
// happened; for timeouts and runner deaths the runner process is gone: call restart() and load() again.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/common/child_runner.h"
#include "backends/onnxruntime/ort_profile.h"
#include "core/decoder_step.h"
#include "core/errors.h"
#include "core/memory.h"
#include "core/timing.h"

namespace rooflens::ort {

// Where run.mjs is, in this order: $ROOFLENS_RUNNER_DIR/run.mjs; <dir of the executable>/../runners/ort/run.mjs;
// <source dir baked in at build time>/runners/ort/run.mjs. Throws UserError listing the places it looked. The runner's
// modules are the *.mjs beside it: whatever finds run.mjs finds them.
std::filesystem::path locate_runner_script();

// True when `npm ci` has installed onnxruntime-node next to the script.
bool runner_dependencies_installed(const std::filesystem::path& script);

// `node run.mjs` as a child runner (script empty: locate_runner_script(); node searched in PATH).
RunnerConfig runner_config(std::filesystem::path script = {}, std::string node = "node");

struct OrtSessionOptions;
// The process-level options of `o` (mallocMmapThreshold) applied to a runner's configuration.
RunnerConfig with_process_options(RunnerConfig config, const OrtSessionOptions& o);

// ORT's inference session options, with ORT's own (JavaScript API) names so that `-B onnxruntime:key=value` and the
// docs of ORT map one to one. Unset optionals are not sent: ORT's defaults apply.
struct OrtSessionOptions {
  std::vector<std::string> executionProviders;                // e.g. {"cpu"}; empty: ORT's default (cpu)
  std::optional<int> intraOpNumThreads;
  std::optional<int> interOpNumThreads;
  std::optional<std::string> graphOptimizationLevel;         // disabled|basic|extended|layout|all
  std::optional<std::string> executionMode;                  // sequential|parallel
  std::optional<bool> enableCpuMemArena;
  std::optional<bool> enableMemPattern;
  std::map<std::string, std::string> extra;                  // inference session config entries, e.g.
                                                             // {"session.intra_op.allow_spinning", "0"}
  std::optional<std::filesystem::path> optimizedModelFilePath;  // dump the optimized graph here (on load)
  std::map<std::string, int64_t> freeDimensionOverrides;     // symbolic dim name -> size
  std::optional<int> logSeverityLevel;                       // 0 verbose .. 4 fatal
  // Not an inference session option (never sent in `options`): the runner process's C allocator, glibc's
  // M_MMAP_THRESHOLD (environment MALLOC_MMAP_THRESHOLD_). Fixed at a size, every block at least that large is its own
  // mapping and goes back to the OS when freed; unset, glibc raises the threshold as blocks are freed and keeps freed
  // memory.
  std::optional<uint64_t> mallocMmapThreshold;
  // Not an option of ORT's either: the build of ONNX Runtime the runner loads — "node" (onnxruntime-node, native) or
  // "web" (onnxruntime-web, WebAssembly: `-B ortweb`, the runner started with `--build web`).
  std::string build = "node";
  // The web build's host (`-B ortweb:host=chromium`): "node" (its Node entry) or "chromium" (a headless Chromium page,
  // runners/ort/chromium_host.mjs), and whether that page is cross-origin isolated (`isolation=off`: no
  // SharedArrayBuffer, so one thread).
  std::string host = "node";
  bool isolation = true;

  nlohmann::ordered_json to_json() const;
  // Sets one option from text, as `-B onnxruntime:key=value` gives it. Keys are the member names; `extra`
  // entries are written "extra.session.intra_op.allow_spinning=0" or directly "session.xxx=..."; providers as
  // "executionProviders=cpu;cuda". Throws UsageError on an unknown key or a malformed value.
  void set(std::string_view key, std::string_view value);
};

// How to feed one model input. Without `file`, values are generated with a fixed seed: floats uniform in
// [low, high) (default [-1, 1)), integers in [min, max) (default [0, 100); give `max` = vocabulary size for
// token ids), bools uniform.
struct InputSpec {
  std::optional<std::vector<int64_t>> shape;   // default: the model's dims, symbolic ones from Inputs::dims
  std::optional<double> low, high;
  std::optional<int64_t> min, max;
  std::optional<std::filesystem::path> file;   // ONNX TensorProto (.pb) or NumPy (.npy)
  std::optional<std::vector<double>> values;   // the elements themselves (--value), in the input's type
};

struct Inputs {
  std::map<std::string, InputSpec> inputs;     // by input name; inputs not listed are generated
  std::map<std::string, int64_t> dims;         // symbolic dim name -> size
  uint64_t seed = 0;
  std::optional<std::filesystem::path> test_data_dir;  // test_data_set_N/ with input_<i>.pb

  nlohmann::ordered_json to_json() const;      // the message fields "inputs", "dims", "seed", "test_data_dir"
};

using Dim = std::variant<int64_t, std::string>;  // fixed size or symbolic name

struct ValueInfo {
  std::string name;
  bool is_tensor = true;
  std::string dtype;                // ORT's JavaScript names: float32, int64, bool, float16, ...
  std::vector<Dim> dims;
};

struct LoadResult {
  std::filesystem::path model;
  double load_ms = 0;               // inference session creation (includes graph optimization)
  std::vector<ValueInfo> inputs, outputs;
  std::optional<std::filesystem::path> optimized_model;  // when optimizedModelFilePath was given and written
  uint64_t peak_rss_bytes = 0;
  // The runner's memory around inference session creation (start, after the inference session, its peak; run_peak_bytes
  // 0). Absent from runners that do not say.
  std::optional<MemoryMeasured> memory;
  // The runtime's calibration constants when asked (LoadExtras::runtime_cost), measured in a process of their own and
  // cached by the runner: what a first inference session of the runtime costs a process (its baseline) and what one
  // node of an inference session costs it (a chain of trivial nodes). 0: not measured.
  uint64_t baseline_bytes = 0;
  uint64_t baseline_run_bytes = 0;  // of baseline_bytes, what its first run added
  uint64_t node_bytes = 0;
  std::string runtime_cost_measured_at;  // when (ISO 8601): the runner keeps the figures per runtime and options
  // ONNX Runtime Web only: what its WebAssembly module runs with, read back after the inference session was created
  // (the build lowers the threads to 1 where WebAssembly threads cannot run).
  std::optional<int64_t> wasm_threads;
  std::optional<bool> wasm_shared_memory;
  std::optional<bool> wasm_cross_origin_isolated;  // the Chromium host's page (absent in Node)
  std::string wasm_host, browser;                  // "node" | "chromium"; Chromium's version
};

// What `load` does besides creating the inference session.
struct LoadExtras {
  bool runtime_cost = false;  // return the runtime's calibration constants (LoadResult::baseline_bytes, node_bytes)
  // The inference session is the profiled one: run_profiled then runs it instead of creating a second inference
  // session, so a process that only profiles holds one inference session. In a private temp dir under profile_dir
  // (empty: the system's).
  bool profiled_inference_session = false;
  std::filesystem::path profile_dir;
  bool dump_graph = false;    // with profiled_inference_session: the inference session writes the graph it executed
};

struct TimedRunResult {
  std::vector<double> latencies_ms;  // one per measured iteration, around session.run only
  double wall_s = 0;                 // measured loop, first run start to last run end
  uint64_t peak_rss_bytes = 0;       // runner's peak RSS so far (process lifetime)
  uint64_t rss_bytes = 0;            // runner's RSS at the end
  int warmup_iterations = 0;
  double warmup_ms = 0;
  std::string stop_reason;           // min_reached | ci_reached | max_iterations | max_duration
  std::optional<std::pair<double, double>> median_ci_ms;  // adaptive runs only
  std::optional<uint64_t> run_peak_bytes;  // VmHWM over this message (reset at its start when run_peak_reset)
  uint64_t probe_peak_bytes = 0;           // memory_probe: VmHWM over the first run, before the warm-up
  bool run_peak_reset = false;
  std::optional<int64_t> page_faults;      // the runner's minor page faults over the measured runs (Node host)
  std::vector<std::string> warnings;       // what the runner saw that the run should say (the reply's "warnings")
};

struct ProfiledRunResult {
  OrtProfile profile;                // all events; profile.runs[0..warmup_iterations) are warm-up
  int warmup_iterations = 0;         // == first measured run index: profile.kernel_events(warmup_iterations)
  int iterations = 0;
  std::vector<double> run_latencies_ms;     // measured profiled runs, timed like run_timed (for overhead)
  std::vector<double> warmup_latencies_ms;
  double session_create_ms = 0;
  std::optional<int64_t> measured_from_ts_us;  // ts of the first measured model_run
  std::filesystem::path profile_file;      // set when keep_profile
  uint64_t peak_rss_bytes = 0;
  // Why fewer runs than asked were profiled (ONNX Runtime Web's memory guard, runners/ort/wasm_memory.mjs), or empty.
  std::string stopped_early;
  std::vector<std::string> warnings;  // as TimedRunResult::warnings
  // dump_graph: the graph this profiled inference session executed (ORT's optimizedModelFilePath), moved out of the
  // profile dir; the caller reads and deletes it (executed_graph() in ort_measure.h). Empty when not asked or not
  // written.
  std::filesystem::path optimized_model;
  // The web build's calibration of its profiler's bookkeeping between two kernel events, per kernel (a lower bound;
  // runners/ort/profiler_gap.mjs), in ms; absent from the native build's replies.
  std::optional<double> profiler_gap_ms;
};

struct TensorData {
  std::string name;
  std::string dtype;
  std::vector<int64_t> dims;
  std::string bytes;                 // raw little-endian element data (numeric and bool tensors)
  std::vector<std::string> strings;  // string tensors
};

// ---- decoder generation (messages generate / generate_profiled; runners/ort/generate.mjs) ----

// The decoder's I/O as the runner feeds it. dtypes in ORT's JavaScript names (float32, float16, int64, int32).
struct DecoderBinding {
  std::string input_ids, attention_mask, position_ids, logits;       // mask / positions: "" when absent
  std::vector<std::pair<std::string, std::string>> past, present;    // per layer: key, value
  int64_t kv_heads = 0, head_dim = 0, vocab = 0;
  std::string kv_dtype = "float32", ids_dtype = "int64", mask_dtype = "int64", position_dtype = "int64";
};

struct GenerateShape {
  int64_t batch = 1, prompt_tokens = 0, gen_tokens = 0;
  std::string next_token = "greedy";  // greedy | fixed
  uint64_t seed = 0;                  // prompt ids (and fixed tokens) are drawn from it
};

struct GeneratedRequest {
  double ttft_ms = 0;                 // feeds ready -> first tokens chosen
  double prefill_run_ms = 0;          // the prefill's session.run alone
  std::vector<double> steps_ms;       // per decode step: previous tokens chosen -> this step's tokens chosen
  std::vector<double> step_runs_ms;   // per decode step: session.run alone
  std::optional<int64_t> prefill_page_faults;  // the process's minor faults over the prefill (runner-counted)...
  std::vector<int64_t> step_page_faults;       // ...and over each decode step (empty when not counted)
};

struct GenerateResult {
  std::vector<GeneratedRequest> requests;   // measured, in order
  double wall_s = 0;
  int warmup_requests = 0;
  double warmup_ms = 0;
  std::vector<std::string> warnings;  // as TimedRunResult::warnings
  std::string stop_reason;
  std::vector<std::vector<int64_t>> tokens;      // per sequence: the prefill's token, then every decode step's
  std::vector<std::vector<int64_t>> prompt_ids;  // per sequence (return_logits only)
  std::vector<std::vector<float>> logits;        // per step (prefill first): [batch * vocab] (return_logits only)
  uint64_t peak_rss_bytes = 0, rss_bytes = 0;
  std::optional<uint64_t> run_peak_bytes;        // VmHWM over the requests (reset at their start when run_peak_reset)
  uint64_t prefill_peak_bytes = 0, decode_peak_bytes = 0;  // each phase's own VmHWM over the requests
  bool run_peak_reset = false;
  CallerMemory caller;  // the JavaScript side of the loop (V8's counters), above its value before the requests
  std::optional<CollectedMemory> collected;  // the memory generation (its heap above its own start)
};

// One phase's runs in the profiled inference session: run indices [first_run + warmup_iterations, first_run + warmup +
// iterations) are the measured ones.
struct PhaseRuns {
  int first_run = 0, warmup_iterations = 0, iterations = 0;
  int64_t past = 0, tokens = 0;       // the step's past length and tokens per sequence
  std::vector<double> run_latencies_ms;  // measured iterations, timed around session.run
};

struct GenerateProfiledResult {
  OrtProfile profile;
  std::optional<PhaseRuns> prefill, decode;  // decode absent when gen_tokens is 0
  double session_create_ms = 0;
  uint64_t peak_rss_bytes = 0;
  std::filesystem::path profile_file;        // set when keep_profile
  std::filesystem::path optimized_model;     // dump_graph: as ProfiledRunResult::optimized_model
  std::string stopped_early;                 // as ProfiledRunResult::stopped_early (ONNX Runtime Web's memory); a
                                             // decode phase it kept from running is absent
  std::vector<std::string> warnings;         // as TimedRunResult::warnings
};

// A reply's "warnings": what the runner saw that the run should say (strings; anything else is skipped).
std::vector<std::string> reply_warnings(const nlohmann::json& reply);

struct RunnerError : UserError {
  RunnerError(ReplyStatus kind, std::string code, const std::string& message, std::string stderr_tail,
              std::string detail = "")
      : UserError(message), kind(kind), code(std::move(code)), stderr_tail(std::move(stderr_tail)),
        detail(std::move(detail)) {}
  ReplyStatus kind;                  // error (runner refused), timeout, died, not_running
  std::string code;                  // "ort", "bad_message", "input", "not_ready", "io", "timeout", "died", ...
  std::string stderr_tail;           // the runner's last stderr lines, for failure records
  std::string detail;                // the runner's own one-line message (ORT's text for "ort"), no model path
};

class OrtRunner {
 public:
  explicit OrtRunner(RunnerConfig config = runner_config());  // starts the runner (throws UserError if it cannot)

  std::string onnxruntime_version() const;
  std::string browser_version() const;            // the Chromium host's browser ("" in Node)       // e.g. "1.30.0" (of the build the runner loaded)
  std::string node_version() const;
  const nlohmann::json& hello() const { return process_.hello(); }

  LoadResult load(const std::filesystem::path& model, const OrtSessionOptions& options,
                  std::chrono::milliseconds timeout = std::chrono::minutes(5), const LoadExtras& extras = {});
  // The measured loop with profiling off: warm-up and stop rule from `timing` (its profile fields unused).
  // `memory_probe`: the first run, before the warm-up, with a peak of its own (probe_peak_bytes).
  TimedRunResult run_timed(const Inputs& inputs, const TimingOptions& timing, std::chrono::milliseconds timeout,
                           bool memory_probe = false);
  // The loaded inference session when it was loaded as the profiled one (LoadExtras::profiled_inference_session;
  // `tmp_dir` and `dump_graph` then come from the load), else a second inference session with profiling on, in a
  // private temp dir under `tmp_dir` (empty: the system's): timing.warmup_iterations dropped, then
  // timing.profile_iterations measured. The profile file is read and deleted unless `keep_profile` (its path is then in
  // the result). `dump_graph`: the profiled inference session also writes the graph it executed (its generated node
  // names are its own: another inference session's graph would not match them).
  ProfiledRunResult run_profiled(const Inputs& inputs, const TimingOptions& timing, std::chrono::milliseconds timeout,
                                 const std::filesystem::path& tmp_dir = {}, bool keep_profile = false,
                                 bool dump_graph = false);
  // Every output of one run; shapes_only leaves the data out (names, types and dims only).
  std::vector<TensorData> outputs(const Inputs& inputs, std::chrono::milliseconds timeout = std::chrono::minutes(5),
                                  bool shapes_only = false);
  void unload();
  // Decoder generation on the loaded inference session (ort_runner_generate.cpp): prefill + decode steps, present fed
  // back as past inside the runner; then per-layer profiles of a prefill step and of the last decode step. `timing`
  // counts requests as iterations (warm-up, measured, caps; profile_iterations per profiled phase). `return_logits`
  // (tests): the first measured request's last-position logits of every step.
  GenerateResult generate(const DecoderBinding& io, const GenerateShape& shape, const TimingOptions& timing,
                          std::chrono::milliseconds timeout, bool return_logits = false);
  GenerateProfiledResult generate_profiled(const DecoderBinding& io, const GenerateShape& shape,
                                           const TimingOptions& timing, std::chrono::milliseconds timeout,
                                           const std::filesystem::path& tmp_dir = {}, bool keep_profile = false,
                                           bool dump_graph = false);

  // Serving the loaded decoder step by step (ort_runner_generate.cpp; runners/ort/serve_steps.mjs): begin, then each
  // step's rows (prompts and chunks one call each, decode rows one batched call over a padded KV cache), then end
  // (every generated id per request when keep_tokens).
  void serve_begin(const DecoderBinding& io, uint64_t seed, const std::string& next_token, bool keep_tokens,
                   std::chrono::milliseconds timeout);
  DecoderStepTimes serve_step(const DecoderStep& step, std::chrono::milliseconds timeout);
  std::map<int64_t, std::vector<int64_t>> serve_end(std::chrono::milliseconds timeout);

  // New runner process; the loaded model is gone (load() again).
  void restart();
  ChildRunner& process() { return process_; }
  // Sends a raw message (for messages the typed API does not cover); throws RunnerError unless ok.
  nlohmann::json call(nlohmann::json message, std::chrono::milliseconds timeout);

 private:
  std::string subject() const;       // the model file, or "ONNX Runtime runner" before load
  // The executed graph a profiled message's run wrote into its profile dir, moved beside that dir (which is deleted).
  static std::filesystem::path take_graph(const nlohmann::json& reply);

  ChildRunner process_;
  std::filesystem::path model_;
};

}  // namespace rooflens::ort
