#pragma once
// The backend interface: something that can run an ONNX model, time it end to end and per kernel.
// Backends know nothing about analysis or reports beyond BackendInfo; the profile driver (src/profile/)
// turns a BackendRun into a ProfileRun.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/report.h"
#include "core/tensor_value.h"

namespace rooflens {

struct TimingOptions {
  int warmup_iterations = 1;
  double warmup_ms = 200;
  int iterations = 10;
  double min_duration_ms = 3000;
  int max_iterations = 100000;   // cap on measured iterations, whatever the duration
  bool adaptive = false;
  int profile_iterations = 10;   // measured profiled iterations (after warmup_iterations of warm-up)
  bool layers = true;            // run the profiled session at all
  // --realtime: the runner at real-time priority (SCHED_FIFO), its main thread and ORT's intra-op workers each
  // on a CPU of their own, so the other processes of a busy machine cannot take its CPUs (falls back to normal
  // scheduling, with a warning, where the system does not allow it).
  bool realtime = false;
};

// One configuration to run: the model with every dim fixed.
struct RunConfig {
  std::filesystem::path model;
  std::map<std::string, int64_t> dims;                       // symbolic dim -> size
  std::map<std::string, std::vector<int64_t>> shapes;        // explicit input shapes (--shape)
  std::map<std::string, int64_t> int_input_max;              // exclusive upper bound for generated ids
  std::map<std::string, std::filesystem::path> input_files;  // --input NAME=FILE
  int threads = 0;                                           // intra-op threads, 0 = backend default
  TimingOptions timing;
  std::chrono::milliseconds timeout{std::chrono::minutes(15)};  // per stage
  std::filesystem::path work_dir;                            // private temp dir for this rooflens process
};

struct KernelTiming {
  std::string node;                      // optimized-graph node name
  std::string op, provider;
  std::vector<double> per_iteration_ms;  // summed per measured profiled iteration
  double start_ms = 0;                   // offset in the first measured iteration
  std::vector<std::vector<int64_t>> input_shapes, output_shapes;
};

struct BackendRun {
  double load_ms = 0;
  std::vector<double> latencies_ms;      // plain (profiling off) measured iterations
  double wall_s = 0;
  std::string stop_reason;
  uint64_t peak_rss_bytes = 0;
  std::vector<double> profiled_latencies_ms;  // profiled iterations, timed like latencies_ms (for overhead)
  std::vector<double> profiled_runs_ms;       // the same iterations as the runtime's own profile times them
                                              // (the span its kernel times live in: coverage's denominator)
  std::vector<KernelTiming> kernels;     // in execution order
  std::optional<std::filesystem::path> optimized_model;  // the graph the kernels belong to
  std::string profile_error;             // the profiled run failed (the runtime refused it; the timed run above
                                         // stands): why, in one line; kernels are then empty
  std::vector<std::string> warnings;     // about how the run was taken (e.g. real-time priority refused)
};

// A failure in one configuration. stage: load | run | profile; kind: error | timeout | died.
// code says what kind of error for kind == error: "ort" (the runtime refused or failed), "input" (an input
// could not be built or fed), or the backend's own class; the timeout/died kinds repeat themselves here.
// detail is the runtime's own one-line text (ONNX Runtime's message), without the model path what() starts with.
struct BackendError : UserError {
  BackendError(std::string stage, std::string kind, const std::string& message, std::string stderr_tail,
               std::string code = "", std::string detail = "")
      : UserError(message), stage(std::move(stage)), kind(std::move(kind)), stderr_tail(std::move(stderr_tail)),
        code(std::move(code)), detail(detail.empty() ? message : std::move(detail)) {}
  std::string stage, kind, stderr_tail, code, detail;
};

// ---- serving many models from one process (zoo runs, `rooflens bench`) ----

// How to feed a model's inputs for one request: a test data set's input_<i>.pb (matched by the name stored in
// the file, else by position), else generated with a fixed seed from the model's dims and the shapes below.
struct FeedSpec {
  std::optional<std::filesystem::path> test_data_dir;
  std::map<std::string, int64_t> dims;                       // symbolic dim -> size
  std::map<std::string, std::vector<int64_t>> shapes;        // explicit input shapes
  std::map<std::string, int64_t> int_input_max;              // exclusive upper bound for generated ids
  uint64_t seed = 0;
};

struct IoDesc {
  std::string name;
  bool is_tensor = true;             // false: a sequence, map or optional value
  int32_t data_type = 0;             // ONNX TensorProto.DataType of a tensor (0 when unknown)
};

struct ServedModel {
  double load_ms = 0;                // session creation
  std::vector<IoDesc> inputs, outputs;
};

struct ModelLoad {
  std::filesystem::path model;
  std::vector<std::pair<std::string, std::string>> options;  // over the backend's own, in the -B spelling
  std::map<std::string, int64_t> dims;                       // fixed at session creation
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
};

// One runtime process serving many models, one at a time: load, feed, read outputs or time, unload. Models of
// a zoo are mostly tiny; a process per model would cost more than the models. A crash or timeout ends the
// process (the call throws BackendError with kind died/timeout); the next load() starts a fresh one.
// Not thread-safe, except abort().
class ModelServer {
 public:
  virtual ~ModelServer() = default;
  // Makes sure the runtime process is up — a new one when `fresh_process` (its peak memory is then the next
  // model's own) — so that starting it is not counted in a model's time. load() starts it too when needed.
  // Throws BackendError, stage "load".
  virtual void start(bool fresh_process) = 0;
  // Creates the session for `m` (replacing any loaded one). Throws BackendError, stage "load".
  virtual ServedModel load(const ModelLoad& m) = 0;
  // Runs the loaded model once and returns every output. Throws BackendError, stage "run".
  virtual std::vector<TensorValue> outputs(const FeedSpec& feed, std::chrono::milliseconds timeout) = 0;
  // Timed run with profiling off, then, when timing.layers, a short profiled run for kernel times (kernels of
  // the optimized graph, with their providers). Throws BackendError, stage "run" or "profile".
  virtual BackendRun measure(const FeedSpec& feed, const TimingOptions& timing, const std::filesystem::path& work_dir,
                             std::chrono::milliseconds timeout) = 0;
  virtual void unload() = 0;
  // TEST-ONLY (rooflens bench honours it when ROOFLENS_TEST_HOOKS=1): makes the runtime process fail as a
  // crashing or hanging model would — "segv" or "sigkill" (the process kills itself with that signal), "hang"
  // (it sleeps past `timeout`). Always throws BackendError, stage "run".
  virtual void inject_fault(const std::string& fault, std::chrono::milliseconds timeout) = 0;
  // Ends the runtime process at once (from another thread, e.g. on Ctrl-C); the call in flight throws.
  virtual void abort() = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendInfo info() const = 0;
  // Runs one configuration in a fresh process (so peak memory is this configuration's). Throws BackendError.
  virtual BackendRun run(const RunConfig& config) = 0;
  // Ends the current process at once (from another thread, e.g. on Ctrl-C); run() then throws.
  virtual void abort() = 0;
  // A server for many models with this backend's options (its process starts on the first load).
  virtual std::unique_ptr<ModelServer> serve() = 0;
};

// "-B onnxruntime:intraOpNumThreads=2,graphOptimizationLevel=all": name plus options in the backend's spelling.
struct BackendSpec {
  std::string name = "onnxruntime";
  std::vector<std::pair<std::string, std::string>> options;
};
BackendSpec parse_backend_spec(const std::string& text);  // throws UsageError


}  // namespace rooflens
