// OrtBackend: RunConfig -> (load, timed run with profiling off, profiled run in its own session) -> BackendRun.
#include "backends/onnxruntime/ort_backend.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <map>
#include <unordered_map>

#include "backends/onnxruntime/ort_runner.h"

namespace rooflens::ort {
namespace {

namespace fs = std::filesystem;

std::string flat(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::vector<int64_t> dims_of(const OrtTypeShape& s) { return s.dims; }

// Per-node kernel times of the measured profiled iterations, in execution order of the first one.
std::vector<KernelTiming> kernel_timings(const ProfiledRunResult& p) {
  int first = p.warmup_iterations;
  int runs = static_cast<int>(p.profile.runs.size()) - first;
  std::vector<KernelTiming> out;
  if (runs <= 0) return out;
  std::unordered_map<std::string, size_t> index;
  for (const OrtProfileEvent* e : p.profile.kernel_events(first)) {
    auto [it, fresh] = index.emplace(e->node_name, out.size());
    if (fresh) {
      KernelTiming k;
      k.node = e->node_name;
      k.op = e->op_name;
      k.provider = e->provider;
      k.per_iteration_ms.assign(static_cast<size_t>(runs), 0.0);
      k.start_ms = static_cast<double>(e->ts_us - p.profile.runs[static_cast<size_t>(first)].ts_us) / 1000.0;
      for (const auto& s : e->input_type_shape) k.input_shapes.push_back(dims_of(s));
      for (const auto& s : e->output_type_shape) k.output_shapes.push_back(dims_of(s));
      out.push_back(std::move(k));
    }
    int r = e->run_index - first;
    if (r >= 0 && r < runs) out[it->second].per_iteration_ms[static_cast<size_t>(r)] += e->dur_us / 1000.0;
  }
  return out;
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
    std::unique_ptr<OrtRunner> runner = start();
    std::string stage = "load";
    try {
      LoadResult l = runner->load(c.model, opts, c.timeout);
      out.load_ms = l.load_ms;
      out.optimized_model = l.optimized_model;
      stage = "run";
      TimedRunOptions t;
      t.warmup_iterations = c.timing.warmup_iterations;
      t.warmup_ms = c.timing.warmup_ms;
      t.iterations = c.timing.iterations;
      t.min_duration_ms = c.timing.min_duration_ms;
      t.adaptive = c.timing.adaptive;
      t.timeout = c.timeout;
      TimedRunResult timed = runner->run_timed(in, t);
      out.latencies_ms = timed.latencies_ms;
      out.wall_s = timed.wall_s;
      out.stop_reason = timed.stop_reason;
      out.peak_rss_bytes = timed.peak_rss_bytes;  // before the profiled session exists: this run's peak
      if (c.timing.layers) {
        stage = "profile";
        ProfiledRunOptions p;
        p.warmup_iterations = c.timing.warmup_iterations;
        p.iterations = c.timing.profile_iterations;
        p.tmp_dir = c.work_dir;
        p.timeout = c.timeout;
        ProfiledRunResult prof = runner->run_profiled(in, p);
        out.profiled_latencies_ms = prof.run_latencies_ms;
        for (int64_t us : prof.profile.run_durations_us(prof.warmup_iterations))
          out.profiled_runs_ms.push_back(static_cast<double>(us) / 1000.0);
        out.kernels = kernel_timings(prof);
      }
    } catch (const RunnerError& e) {
      pid_ = 0;
      throw BackendError(stage, to_string(e.kind), e.what(), e.stderr_tail);
    }
    pid_ = 0;
    return out;
  }

 private:
  std::unique_ptr<OrtRunner> start() {
    auto r = std::make_unique<OrtRunner>();
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
  for (const auto& [k, v] : options) {
    if (k == "opt") o.set("graphOptimizationLevel", v);
    else if (k == "threads") o.set("intraOpNumThreads", v);
    else if (k == "enableProfiling" || k == "profileFilePrefix")
      throw UsageError("-B onnxruntime:" + k + ": rooflens profiles in its own session; leave it out");
    else o.set(k, v);
  }
  return std::make_unique<OrtBackend>(std::move(o));
}

}  // namespace rooflens::ort
