#include "backends/onnxruntime/ort_measure.h"

#include <algorithm>
#include <unordered_map>

#include "backends/onnxruntime/ort_error_class.h"
#include "backends/onnxruntime/ort_kernel_kind.h"

namespace rooflens::ort {

std::vector<KernelRecord> kernel_records(const ProfiledRunResult& p) {
  int first = p.warmup_iterations;
  int runs = static_cast<int>(p.profile.runs.size()) - first;
  std::vector<KernelRecord> out;
  if (runs <= 0) return out;
  std::unordered_map<std::string, size_t> index;
  for (const OrtProfileEvent* e : p.profile.kernel_events(first)) {
    auto [it, fresh] = index.emplace(e->node_name, out.size());
    if (fresh) {
      KernelRecord k;
      k.name = e->node_name;
      k.op = e->op_name;
      k.device = e->provider;
      k.per_iteration_ms.assign(static_cast<size_t>(runs), 0.0);
      k.start_ms = static_cast<double>(e->ts_us - p.profile.runs[static_cast<size_t>(first)].ts_us) / 1000.0;
      for (const auto& s : e->input_type_shape) {
        k.input_shapes.push_back(s.dims);
        k.input_dtypes.push_back(onnx_dtype(s.dtype));
      }
      for (const auto& s : e->output_type_shape) {
        k.output_shapes.push_back(s.dims);
        k.output_dtypes.push_back(onnx_dtype(s.dtype));
      }
      k.kind = kernel_kind(e->op_name);
      k.device_class = provider_device(e->provider);
      out.push_back(std::move(k));
    }
    int r = e->run_index - first;
    if (r >= 0 && r < runs) out[it->second].per_iteration_ms[static_cast<size_t>(r)] += e->dur_us / 1000.0;
  }
  return out;
}

Inputs inputs_of(const FeedSpec& f) {
  Inputs in;
  in.dims = f.dims;
  in.seed = f.seed;
  in.test_data_dir = f.test_data_dir;
  for (const auto& [name, shape] : f.shapes) in.inputs[name].shape = shape;
  for (const auto& [name, max] : f.int_input_max) in.inputs[name].max = max;
  for (const auto& [name, file] : f.files) in.inputs[name].file = file;
  return in;
}

Measurement measure_loaded(OrtRunner& runner, const Inputs& in, const TimingOptions& timing,
                           const std::filesystem::path& work_dir, std::chrono::milliseconds timeout,
                           std::string& stage) {
  Measurement out;
  stage = "run";
  TimedRunResult timed = runner.run_timed(in, timing, timeout);
  out.latencies_ms = timed.latencies_ms;
  out.wall_s = timed.wall_s;
  out.stop_reason = timed.stop_reason;
  out.peak_rss_bytes = timed.peak_rss_bytes;  // before the profiled session exists: this run's peak
  if (!timing.layers) return out;
  stage = "profile";
  ProfiledRunResult prof;
  try {
    prof = runner.run_profiled(in, timing, timeout, work_dir);
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
  out.kernels = kernel_records(prof);
  return out;
}

BackendError backend_error(const std::string& stage, const RunnerError& e) {
  return BackendError(stage, to_string(e.kind), e.what(), e.stderr_tail, e.code, e.detail,
                      e.code == "ort" ? classify_ort_message(e.detail) : "");
}

OrtSessionOptions session_options(const BackendSpec& spec) {
  OrtSessionOptions o;
  if (spec.opt_level) o.set("graphOptimizationLevel", *spec.opt_level);
  for (const auto& [k, v] : spec.options) apply_ort_option(o, k, v);
  return o;
}

void apply_ort_option(OrtSessionOptions& o, const std::string& k, const std::string& v) {
  if (k == "opt") o.set("graphOptimizationLevel", v);
  else if (k == "threads") o.set("intraOpNumThreads", v);
  else if (k == "enableProfiling" || k == "profileFilePrefix")
    throw UsageError("-B onnxruntime:" + k + ": rooflens profiles in its own session; leave it out");
  else o.set(k, v);
}

}  // namespace rooflens::ort
