#pragma once
// The backend interface: a runtime that runs one configuration of an ONNX model and yields the neutral measurement
// record (core/measurement.h). A backend knows nothing of analysis or reports: the driver hands its record and its
// mapping rules to assemble_run (assembly/). Everything runtime-specific — option names, how threads and an
// optimisation level are applied, kernel naming — stays in the backend's folder.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "core/measurement.h"
#include "core/report_hardware.h"
#include "core/report_run.h"
#include "core/run_key.h"
#include "core/tensor_value.h"
#include "core/timing.h"
#include "mapping/rules.h"

namespace rooflens {

class DecoderGeneration;  // backends/generation.h
class Serving;            // backends/serving.h

// How to feed a model's inputs: files named per input (--input), a test data set's input_<i>.pb (matched by the
// name stored in the file, else by position), else generated with a fixed seed from the model's dims and shapes.
struct FeedSpec {
  std::map<std::string, int64_t> dims;                        // symbolic dim -> size
  std::map<std::string, std::vector<int64_t>> shapes;         // explicit input shapes
  std::map<std::string, int64_t> int_input_max;               // exclusive upper bound for generated ids
  std::map<std::string, std::vector<double>> values;          // contents of small inputs (--value), not generated
  std::map<std::string, std::filesystem::path> files;         // --input NAME=FILE (.pb or .npy)
  std::optional<std::filesystem::path> test_data_dir;
  uint64_t seed = 0;
};

// One configuration to run: the model with every dim fixed.
struct RunSpec {
  std::filesystem::path model;
  RunKey key;                                                 // key.threads > 0: that many intra-op threads
  FeedSpec feed;
  TimingOptions timing;
  std::chrono::milliseconds timeout{std::chrono::minutes(15)};  // per stage
  std::filesystem::path work_dir;                             // private temp dir of this rooflens process
};

// A failure in one configuration. stage: load | run | profile; kind: error | timeout | died.
// code says what kind of error for kind == error: the runtime's name when the runtime refused or failed ("ort",
// "opencv"), "input" (an input could not be built or fed), or another class of the backend's; the timeout/died
// kinds repeat themselves here. detail is the runtime's own one-line text, without the model path what() starts
// with. error_class is a short stable class the backend read from the runtime's message ("ort:no-kernel"), for
// grouping failures; "" when it has none.
struct BackendError : UserError {
  BackendError(std::string stage, std::string kind, const std::string& message, std::string stderr_tail,
               std::string code = "", std::string detail = "", std::string error_class = "")
      : UserError(message), stage(std::move(stage)), kind(std::move(kind)), stderr_tail(std::move(stderr_tail)),
        code(std::move(code)), detail(detail.empty() ? message : std::move(detail)),
        error_class(std::move(error_class)) {}
  std::string stage, kind, stderr_tail, code, detail, error_class;
};

// ---- serving many models from one process (`rooflens bench`): an optional capability ----

struct IoDesc {
  std::string name;
  bool is_tensor = true;             // false: a sequence, map or optional value
  int32_t data_type = 0;             // ONNX TensorProto.DataType of a tensor (0 when unknown)
};

struct ServedModel {
  double load_ms = 0;                // inference session creation
  std::vector<IoDesc> inputs, outputs;
};

struct ModelLoad {
  std::filesystem::path model;
  std::string name;                                          // what the caller calls it (a zoo entry's name)
  std::vector<std::pair<std::string, std::string>> options;  // over the backend's own, in the -B spelling
  // --opt-level for this inference session alone (disabled | basic | extended | layout | all), mapped as each backend
  // maps BackendSpec::opt_level; it wins over the backend's options and `options` (profile's int8 check: opt-level
  // disabled)
  std::optional<std::string> opt_level;
  std::map<std::string, int64_t> dims;                       // fixed at inference session creation
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  int64_t threads = 0;                                       // intra-op threads; 0: the backend's own setting
  // Another runtime process takes turns with this one (compare's turns): between its runs the runtime must leave
  // the CPUs alone (ORT: no spinning intra-op workers), or an idle side slows the side being timed.
  bool idle_between_runs = false;
};

// One runtime process serving many models, one at a time: load, feed, read outputs or time, unload. Models of a
// zoo are mostly tiny; a process per model would cost more than the models. A crash or timeout ends the process
// (the call throws BackendError with kind died/timeout); the next load() starts a fresh one.
// Not thread-safe, except abort().
class LiveRunner {
 public:
  virtual ~LiveRunner() = default;
  // Makes sure the runtime process is up — a new one when `fresh_process` (its peak memory is then the next
  // model's own) — so that starting it is not counted in a model's time. Throws BackendError, stage "load".
  virtual void start(bool fresh_process) = 0;
  // Creates the inference session for `m` (replacing any loaded one). Throws BackendError, stage "load".
  virtual ServedModel load(const ModelLoad& m) = 0;
  // Runs the loaded model once and returns every output. Throws BackendError, stage "run".
  virtual std::vector<TensorValue> outputs(const FeedSpec& feed, std::chrono::milliseconds timeout) = 0;
  // The same, names, types and dims only (no data): for models with every intermediate tensor exposed as an
  // output (`analyze --check-runtime`). The default drops the data of outputs(); a backend may skip sending it.
  virtual std::vector<TensorValue> output_shapes(const FeedSpec& feed, std::chrono::milliseconds timeout) {
    auto values = outputs(feed, timeout);
    for (auto& v : values) {
      v.bytes.clear();
      v.strings.clear();
    }
    return values;
  }
  // Timed run with profiling off, then, when timing.layers, a short profiled run for kernel times.
  // Throws BackendError, stage "run" or "profile".
  virtual Measurement measure(const FeedSpec& feed, const TimingOptions& timing,
                              const std::filesystem::path& work_dir, std::chrono::milliseconds timeout) = 0;
  virtual void unload() = 0;
  // Ends the runtime process at once (from another thread, e.g. on Ctrl-C); the call in flight throws.
  virtual void abort() = 0;
  // The runtime process, -1 when none runs (for observing it: memory, or a test's simulated crash).
  virtual pid_t process_id() const = 0;
};

// ---- the backend ----

// "-B onnxruntime:intraOpNumThreads=2,graphOptimizationLevel=all": name plus options in the backend's spelling.
struct BackendSpec {
  std::string name = "onnxruntime";
  std::vector<std::pair<std::string, std::string>> options;
  // --opt-level: disabled | basic | extended | layout | all; each backend maps it to its own setting (an option
  // in `options` that says otherwise wins).
  std::optional<std::string> opt_level;
  std::string text;                  // as given on the command line ("" for the default)
};
BackendSpec parse_backend_spec(const std::string& text);  // throws UsageError

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendInfo info() const = 0;
  // The intra-op threads a run asking for `requested` uses (0: the backend's default), as the run records them.
  virtual int64_t threads_for(int64_t requested) const = 0;
  // Runs one configuration in a fresh process (so peak memory is this configuration's). Throws BackendError.
  virtual Measurement run(const RunSpec& spec) = 0;
  // Ends the current process at once (from another thread, e.g. on Ctrl-C); run() then throws.
  virtual void abort() = 0;
  // How this runtime names and rewrites kernels, for mapping them to the user's nodes.
  virtual const MappingRules& mapping_rules() const = 0;
  // A live runner for many models with this backend's options (its process starts on the first load); nullptr when
  // the backend cannot serve (then `rooflens bench` refuses it with one line).
  virtual std::unique_ptr<LiveRunner> live_runner() { return nullptr; }
  // Decoder generation step by step with a KV cache (`rooflens generate`, backends/generation.h); nullptr when the
  // backend cannot (then `rooflens generate` refuses it with one line).
  virtual DecoderGeneration* generation() { return nullptr; }
  // Instances for `rooflens capacity` (backends/serving.h); nullptr when the backend cannot serve that way (then
  // `rooflens capacity` refuses it with one line).
  virtual Serving* serving() { return nullptr; }
  // The roofs of the engine this backend's kernels run in when it is not the machine's native code
  // (Measurement::roofs_engine: WebAssembly), measured now by that engine's own kernels in a process of their own
  // (quick: fewer points, as hw --quick). nullopt: the backend runs native code. Throws BackendError.
  virtual std::optional<EngineRoofs> measure_engine_roofs(bool quick) {
    (void)quick;
    return std::nullopt;
  }
};

}  // namespace rooflens
