// OrtBackend: RunConfig -> (load, timed run with profiling off, profiled run in its own session) -> BackendRun,
// in a fresh runner per configuration; serve() hands out model servers (ort_server.h) for zoo runs.
#include "backends/onnxruntime/ort_backend.h"

#include <sched.h>

#include <atomic>
#include <csignal>
#include <vector>

#include "backends/onnxruntime/ort_measure.h"
#include "backends/onnxruntime/ort_runner.h"
#include "backends/onnxruntime/ort_server.h"

namespace rooflens::ort {
namespace {

std::string flat(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// The CPUs rooflens may use (its affinity mask), in order.
std::vector<int> allowed_cpus() {
  std::vector<int> out;
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

// --realtime placement: the runner's main thread (which calls session.run and does its share of every parallel
// section) on the first allowed CPU, each intra-op worker on one of the next ones. With ORT's default thread
// count ORT pins its workers to cores 1..N-1 itself and leaves the main thread free: it goes to the first CPU.
// A thread count above the CPUs leaves the workers where ORT puts them.
RunnerConfig placed(int threads, OrtSessionOptions& opts) {
  RunnerConfig rc;
  rc.realtime_priority = 10;  // any real-time priority outranks every ordinary process; leave room above
  std::vector<int> cpus = allowed_cpus();
  if (cpus.empty()) return rc;
  rc.cpus = {cpus[0]};
  if (threads > 1 && static_cast<size_t>(threads) <= cpus.size()) {
    std::string affinities;  // ORT's format: one entry per worker, ';'-separated, 1-based processor ids
    for (int t = 1; t < threads; ++t) affinities += (t > 1 ? ";" : "") + std::to_string(cpus[static_cast<size_t>(t)] + 1);
    opts.extra["session.intra_op_thread_affinities"] = affinities;
  }
  return rc;
}

class OrtBackend : public Backend {
 public:
  explicit OrtBackend(OrtSessionOptions base) : base_(std::move(base)) {
    OrtRunner probe;  // fails early (one line) when node or onnxruntime-node is missing
    ort_version_ = probe.onnxruntime_version();
    node_version_ = probe.node_version();
  }

  BackendInfo info() const override {
    BackendInfo b;
    b.name = "onnxruntime";
    b.version = ort_version_;
    b.runtime = "onnxruntime-node " + ort_version_ + " on node " + node_version_ + " (runners/ort/run.mjs)";
    const nlohmann::ordered_json options = base_.to_json();  // items() must not outlive it
    for (const auto& [k, v] : options.items()) b.options[k] = flat(v);
    return b;
  }

  void abort() override {
    pid_t pid = pid_.load();
    if (pid > 0) ::kill(pid, SIGKILL);
  }

  BackendRun run(const RunConfig& c) override {
    OrtSessionOptions opts = base_;
    if (c.threads > 0) opts.intraOpNumThreads = c.threads;
    for (const auto& [k, v] : c.dims) opts.freeDimensionOverrides[k] = v;
    if (c.timing.layers) opts.optimizedModelFilePath = c.work_dir / ("optimized-" + std::to_string(++serial_) + ".onnx");

    Inputs in;
    in.dims = c.dims;
    for (const auto& [name, shape] : c.shapes) in.inputs[name].shape = shape;
    for (const auto& [name, max] : c.int_input_max) in.inputs[name].max = max;
    for (const auto& [name, file] : c.input_files) in.inputs[name].file = file;

    BackendRun out;
    RunnerConfig where = c.timing.realtime ? placed(c.threads, opts) : RunnerConfig{};
    std::unique_ptr<OrtRunner> runner = start(where);
    std::string stage = "load";
    try {
      LoadResult l = runner->load(c.model, opts, c.timeout);
      stage = "run";
      out = measure_loaded(*runner, in, c.timing, c.work_dir, c.timeout, stage);
      out.load_ms = l.load_ms;
      out.optimized_model = l.optimized_model;
    } catch (const RunnerError& e) {
      pid_ = 0;
      throw backend_error(stage, e);
    }
    pid_ = 0;
    if (runner->process().realtime_refused())
      out.warnings.push_back("--realtime: real-time scheduling was not allowed (needs root or CAP_SYS_NICE); the "
                             "runner ran at normal priority, pinned");
    return out;
  }

  std::unique_ptr<ModelServer> serve() override { return make_ort_server(base_); }

 private:
  std::unique_ptr<OrtRunner> start(RunnerConfig config) {
    auto r = std::make_unique<OrtRunner>(std::move(config));
    pid_ = r->process().pid();
    return r;
  }

  OrtSessionOptions base_;
  std::string ort_version_, node_version_;
  std::atomic<pid_t> pid_{0};
  int serial_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_ort_backend(const std::vector<std::pair<std::string, std::string>>& options) {
  OrtSessionOptions o;
  for (const auto& [k, v] : options) apply_ort_option(o, k, v);
  return std::make_unique<OrtBackend>(std::move(o));
}

}  // namespace rooflens::ort
