#include "backends/onnxruntime/ort_measure.h"

#include <algorithm>
#include <unordered_map>

namespace rooflens::ort {

std::vector<KernelTiming> kernel_timings(const ProfiledRunResult& p) {
  return kernel_timings(p.profile, p.warmup_iterations, static_cast<int>(p.profile.runs.size()) - p.warmup_iterations);
}

std::vector<KernelTiming> kernel_timings(const OrtProfile& profile, int first, int runs) {
  std::vector<KernelTiming> out;
  if (runs <= 0 || first < 0 || static_cast<size_t>(first) >= profile.runs.size()) return out;
  std::unordered_map<std::string, size_t> index;
  for (const OrtProfileEvent* e : profile.kernel_events(first)) {
    int r = e->run_index - first;
    if (r < 0 || r >= runs) continue;
    auto [it, fresh] = index.emplace(e->node_name, out.size());
    if (fresh) {
      KernelTiming k;
      k.node = e->node_name;
      k.op = e->op_name;
      k.provider = e->provider;
      k.per_iteration_ms.assign(static_cast<size_t>(runs), 0.0);
      k.start_ms = static_cast<double>(e->ts_us - profile.runs[static_cast<size_t>(first)].ts_us) / 1000.0;
      for (const auto& s : e->input_type_shape) k.input_shapes.push_back(s.dims);
      for (const auto& s : e->output_type_shape) k.output_shapes.push_back(s.dims);
      out.push_back(std::move(k));
    }
    out[it->second].per_iteration_ms[static_cast<size_t>(r)] += e->dur_us / 1000.0;
  }
  return out;
}

BackendRun measure_loaded(OrtRunner& runner, const Inputs& in, const TimingOptions& timing,
                          const std::filesystem::path& work_dir, std::chrono::milliseconds timeout,
                          std::string& stage) {
  BackendRun out;
  stage = "run";
  TimedRunOptions t;
  t.warmup_iterations = timing.warmup_iterations;
  t.warmup_ms = timing.warmup_ms;
  t.iterations = timing.iterations;
  t.min_duration_ms = timing.min_duration_ms;
  t.max_iterations = std::max(timing.max_iterations, timing.iterations);
  t.adaptive = timing.adaptive;
  t.timeout = timeout;
  TimedRunResult timed = runner.run_timed(in, t);
  out.latencies_ms = timed.latencies_ms;
  out.wall_s = timed.wall_s;
  out.stop_reason = timed.stop_reason;
  out.peak_rss_bytes = timed.peak_rss_bytes;  // before the profiled session exists: this run's peak
  if (!timing.layers) return out;
  stage = "profile";
  ProfiledRunOptions p;
  p.warmup_iterations = timing.warmup_iterations;
  p.iterations = timing.profile_iterations;
  p.tmp_dir = work_dir;
  p.timeout = timeout;
  ProfiledRunResult prof;
  try {
    prof = runner.run_profiled(in, p);
  } catch (const RunnerError& e) {
    // The runtime refused the profiled run but the runner lives on: the timed run above is a result of its
    // own, so keep it and say why the layers are missing. A dead or hung runner still ends the measurement.
    if (e.kind != ReplyStatus::error) throw;
    out.profile_error = e.what();
    return out;
  }
  out.profiled_latencies_ms = prof.run_latencies_ms;
  for (int64_t us : prof.profile.run_durations_us(prof.warmup_iterations))
    out.profiled_runs_ms.push_back(static_cast<double>(us) / 1000.0);
  out.kernels = kernel_timings(prof);
  return out;
}

BackendError backend_error(const std::string& stage, const RunnerError& e) {
  return BackendError(stage, to_string(e.kind), e.what(), e.stderr_tail, e.code, e.detail);
}

void apply_ort_option(OrtSessionOptions& o, const std::string& k, const std::string& v) {
  if (k == "opt") o.set("graphOptimizationLevel", v);
  else if (k == "threads") o.set("intraOpNumThreads", v);
  else if (k == "enableProfiling" || k == "profileFilePrefix")
    throw UsageError("-B onnxruntime:" + k + ": rooflens profiles in its own session; leave it out");
  else o.set(k, v);
}

}  // namespace rooflens::ort
