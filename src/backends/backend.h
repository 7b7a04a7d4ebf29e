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

namespace rooflens {

struct TimingOptions {
  int warmup_iterations = 1;
  double warmup_ms = 200;
  int iterations = 10;
  double min_duration_ms = 3000;
  bool adaptive = false;
  int profile_iterations = 10;   // measured profiled iterations (after warmup_iterations of warm-up)
  bool layers = true;            // run the profiled session at all
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
};

// A failure in one configuration. stage: load | run | profile; kind: error | timeout | died.
struct BackendError : UserError {
  BackendError(std::string stage, std::string kind, const std::string& message, std::string stderr_tail)
      : UserError(message), stage(std::move(stage)), kind(std::move(kind)), stderr_tail(std::move(stderr_tail)) {}
  std::string stage, kind, stderr_tail;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendInfo info() const = 0;
  // Runs one configuration in a fresh process (so peak memory is this configuration's). Throws BackendError.
  virtual BackendRun run(const RunConfig& config) = 0;
  // Ends the current process at once (from another thread, e.g. on Ctrl-C); run() then throws.
  virtual void abort() = 0;
};

// "-B onnxruntime:intraOpNumThreads=2,graphOptimizationLevel=all": name plus options in the backend's spelling.
struct BackendSpec {
  std::string name = "onnxruntime";
  std::vector<std::pair<std::string, std::string>> options;
};
BackendSpec parse_backend_spec(const std::string& text);  // throws UsageError

using BackendFactory = std::function<std::unique_ptr<Backend>(const BackendSpec&)>;
// Registry: name -> factory. Throws UsageError naming the known backends for an unknown name.
std::unique_ptr<Backend> make_backend(const BackendSpec& spec);
std::vector<std::string> backend_names();

}  // namespace rooflens
