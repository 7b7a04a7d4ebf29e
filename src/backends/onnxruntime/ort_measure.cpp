#include "backends/onnxruntime/ort_measure.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "backends/onnxruntime/ort_dispatch.h"
#include "backends/onnxruntime/ort_error_class.h"
#include "backends/onnxruntime/ort_kernel_kind.h"
#include "backends/onnxruntime/ort_memory_rules.h"
#include "model/onnx_graph_view.h"

namespace rooflens::ort {

std::vector<KernelRecord> kernel_records(const ProfiledRunResult& p) {
  return kernel_records(p.profile, p.warmup_iterations, static_cast<int>(p.profile.runs.size()) - p.warmup_iterations);
}

namespace {

// ORT times a control-flow node (If, Loop, Scan) from its start to the end of the subgraph it runs: the events of
// the subgraph's kernels lie inside its own, on its thread. Each event keeps only its own time (beyond the events
// directly inside it) and names the event it ran inside, so the kernels add up to the run once.
struct Nesting {
  std::vector<int64_t> self_us;
  std::vector<int> parent;  // index of the enclosing event, -1 at the top
};

Nesting nesting(const std::vector<const OrtProfileEvent*>& ev) {
  // ORT writes whole microseconds: a child's end can pass its parent's by the rounding of both.
  constexpr int64_t kRoundingUs = 2;
  Nesting n{std::vector<int64_t>(ev.size()), std::vector<int>(ev.size(), -1)};
  for (size_t i = 0; i < ev.size(); ++i) n.self_us[i] = ev[i]->dur_us;
  std::vector<size_t> order(ev.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (ev[a]->tid != ev[b]->tid) return ev[a]->tid < ev[b]->tid;
    if (ev[a]->ts_us != ev[b]->ts_us) return ev[a]->ts_us < ev[b]->ts_us;
    return ev[a]->dur_us > ev[b]->dur_us;  // the enclosing one first
  });
  auto end = [&](size_t i) { return ev[i]->ts_us + ev[i]->dur_us; };
  std::vector<size_t> open;  // events on this thread that may still enclose the next one, outermost first
  for (size_t i : order) {
    if (!open.empty() && ev[open.back()]->tid != ev[i]->tid) open.clear();
    while (!open.empty() && end(open.back()) <= ev[i]->ts_us) open.pop_back();
    if (!open.empty() && end(i) <= end(open.back()) + kRoundingUs) {
      n.parent[i] = static_cast<int>(open.back());
      n.self_us[open.back()] -= ev[i]->dur_us;
    } else {
      open.clear();  // overlaps without nesting: not a subgraph of anything open
    }
    open.push_back(i);
  }
  for (auto& s : n.self_us) s = std::max<int64_t>(s, 0);
  return n;
}

}  // namespace

std::vector<KernelRecord> kernel_records(const OrtProfile& profile, int first, int runs) {
  std::vector<KernelRecord> out;
  if (runs <= 0 || first < 0 || static_cast<size_t>(first) >= profile.runs.size()) return out;
  std::unordered_map<std::string, size_t> index;
  std::vector<const OrtProfileEvent*> events = profile.kernel_events(first);
  std::erase_if(events, [](const OrtProfileEvent* e) { return is_fence(*e); });  // waits around a kernel, not one
  const Nesting nested = nesting(events);
  for (size_t i = 0; i < events.size(); ++i) {
    const OrtProfileEvent* e = events[i];
    const int r = e->run_index - first;
    if (r < 0 || r >= runs) continue;
    auto [it, fresh] = index.emplace(e->node_name, out.size());
    if (fresh) {
      KernelRecord k;
      k.name = e->node_name;
      k.op = e->op_name;
      k.device = e->provider;
      k.per_iteration_ms.assign(static_cast<size_t>(runs), 0.0);
      k.start_ms = static_cast<double>(e->ts_us - profile.runs[static_cast<size_t>(first)].ts_us) / 1000.0;
      for (const auto& s : e->input_type_shape) {
        k.input_shapes.push_back(s.dims);
        k.input_dtypes.push_back(onnx_dtype(s.dtype));
      }
      for (const auto& s : e->output_type_shape) {
        k.output_shapes.push_back(s.dims);
        k.output_dtypes.push_back(onnx_dtype(s.dtype));
      }
      // The element type it computed in, as the ORT profile importer reads it: its first input's (a QLinearConv
      // reads uint8/int8 and is held against the int8 roof, a Cast from fp16 against nothing but memory).
      if (!k.input_dtypes.empty()) k.precision = k.input_dtypes.front();
      k.kind = kernel_kind(e->op_name, e->node_name);
      k.inserted_for = inserted_for(e->op_name, e->node_name);
      k.device_class = provider_device(e->provider);
      if (nested.parent[i] >= 0) k.enclosing = events[static_cast<size_t>(nested.parent[i])]->node_name;
      k.reuse = buffer_reuse(e->op_name);
      k.packed_inputs = packed_inputs(e->op_name);
      k.maybe_inplace_input = maybe_inplace_input(e->op_name);
      out.push_back(std::move(k));
    }
    // The allocator's figures after the kernel, the largest over the measured iterations.
    const KernelAllocator a = kernel_allocator(e->args);
    KernelRecord& k = out[it->second];
    if (a.in_use) k.allocator_in_use_bytes = std::max(k.allocator_in_use_bytes.value_or(0), *a.in_use);
    if (a.held) k.allocator_held_bytes = std::max(k.allocator_held_bytes.value_or(0), *a.held);
    out[it->second].per_iteration_ms[static_cast<size_t>(r)] += static_cast<double>(nested.self_us[i]) / 1000.0;
  }
  return out;
}

std::optional<GraphView> executed_graph(const std::optional<std::filesystem::path>& file, std::string& problem) {
  if (!file) return std::nullopt;
  std::optional<GraphView> g;
  try {
    g = read_graph_view(file->string());
  } catch (const std::exception& e) {
    problem = e.what();
  }
  std::error_code ec;
  std::filesystem::remove(*file, ec);
  return g;
}

Inputs inputs_of(const FeedSpec& f) {
  Inputs in;
  in.dims = f.dims;
  in.seed = f.seed;
  in.test_data_dir = f.test_data_dir;
  for (const auto& [name, shape] : f.shapes) in.inputs[name].shape = shape;
  for (const auto& [name, max] : f.int_input_max) in.inputs[name].max = max;
  for (const auto& [name, v] : f.values) in.inputs[name].values = v;
  for (const auto& [name, file] : f.files) in.inputs[name].file = file;
  return in;
}

Measurement timed_measurement(OrtRunner& runner, const Inputs& in, const TimingOptions& timing,
                              std::chrono::milliseconds timeout, bool memory_probe) {
  Measurement out;
  TimedRunResult timed = runner.run_timed(in, timing, timeout, memory_probe);
  out.latencies_ms = timed.latencies_ms;
  out.wall_s = timed.wall_s;
  out.stop_reason = timed.stop_reason;
  out.peak_rss_bytes = timed.peak_rss_bytes;
  out.page_faults = timed.page_faults;
  out.warnings.insert(out.warnings.end(), timed.warnings.begin(), timed.warnings.end());
  if (timed.run_peak_bytes) {
    out.memory = MemoryMeasured{};
    out.memory->run_peak_bytes = *timed.run_peak_bytes;
    out.memory->probe_peak_bytes = timed.probe_peak_bytes;
    out.memory->peak_reset = timed.run_peak_reset;
  }
  return out;
}

void add_profiled_measurement(Measurement& out, OrtRunner& runner, const Inputs& in, const TimingOptions& timing,
                              const std::filesystem::path& work_dir, std::chrono::milliseconds timeout) {
  ProfiledRunResult prof;
  try {
    prof = runner.run_profiled(in, timing, timeout, work_dir, /*keep_profile=*/false, /*dump_graph=*/true);
  } catch (const RunnerError& e) {
    // The runtime refused the profiled run but the runner lives on: the timed run is a result of its own, so keep it
    // and say why the layers are missing. A dead or hung runner still ends the measurement.
    if (e.kind != ReplyStatus::error) throw;
    out.profile_error = e.what();
    return;
  }
  out.profiled_latencies_ms = prof.run_latencies_ms;
  for (int64_t us : prof.profile.run_durations_us(prof.warmup_iterations))
    out.profiled_runs_ms.push_back(static_cast<double>(us) / 1000.0);
  out.kernels = kernel_records(prof);
  const int measured = static_cast<int>(prof.profile.runs.size()) - prof.warmup_iterations;
  out.dispatch = dispatch_samples(prof.profile, prof.warmup_iterations, measured);
  out.dispatch.profiler_gap_ms = prof.profiler_gap_ms;
  out.threads_observed = threads_observed(prof.profile, prof.warmup_iterations, measured);
  out.kernel_time_step_ms = kOrtKernelTimeStepMs;
  if (!prof.stopped_early.empty()) out.warnings.push_back(prof.stopped_early);
  out.warnings.insert(out.warnings.end(), prof.warnings.begin(), prof.warnings.end());
  std::string problem;
  out.executed_graph = executed_graph(prof.optimized_model.empty() ? std::nullopt
                                                                   : std::optional<std::filesystem::path>(prof.optimized_model),
                                      problem);
  if (!problem.empty())
    out.warnings.push_back("the optimized graph could not be read (kernels matched by name only): " + problem);
}

Measurement measure_loaded(OrtRunner& runner, const Inputs& in, const TimingOptions& timing,
                           const std::filesystem::path& work_dir, std::chrono::milliseconds timeout,
                           std::string& stage, bool memory_probe) {
  stage = "run";
  Measurement out = timed_measurement(runner, in, timing, timeout, memory_probe);
  if (!timing.layers) return out;
  stage = "profile";
  add_profiled_measurement(out, runner, in, timing, work_dir, timeout);
  return out;
}

void add_load_memory(Measurement& m, const LoadResult& load) {
  if (!load.memory || !m.memory) {
    m.memory.reset();
    return;
  }
  MemoryMeasured mm = *load.memory;
  mm.run_peak_bytes = m.memory->run_peak_bytes;
  mm.probe_peak_bytes = m.memory->probe_peak_bytes;
  mm.peak_reset = load.memory->peak_reset && m.memory->peak_reset;
  mm.increase_bytes = measured_increase(mm);
  mm.peak_bytes = measured_peak(mm);
  m.memory = mm;
  m.output_copies = 1;  // onnxruntime-node copies every output of session.run into a new JavaScript buffer
}

void add_runtime_cost(Measurement& m, const LoadResult& calibrated) {
  m.runtime_baseline_bytes = calibrated.baseline_bytes;
  m.runtime_baseline_run_bytes = calibrated.baseline_run_bytes;
  m.runtime_node_bytes = calibrated.node_bytes;
  m.runtime_cost_measured_at = calibrated.runtime_cost_measured_at;
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
    throw UsageError("-B onnxruntime:" + k + ": rooflens profiles in its own inference session; leave it out");
  else o.set(k, v);
}

}  // namespace rooflens::ort
