// An ORT profile -> Measurement: kernels per node of the optimized graph, each with its provider (CUDA, TensorRT, CPU,
// ...), per-iteration times over the profile's model_run events, shapes and element types; Memcpy nodes as copies; a
// CPU node in a profile where an accelerator ran is a fallback. The inference session's initialisation time is the load
// time. Parsing and the kernel records are the live backend's (backends/onnxruntime/).
#include "importers/onnxruntime/ort_import.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <unordered_map>

#include "backends/onnxruntime/ort_mapping_rules.h"
#include "backends/onnxruntime/ort_measure.h"
#include "backends/onnxruntime/ort_profile.h"
#include "importers/onnxruntime/ort_device_kernels.h"
#include "importers/support.h"

namespace rooflens::importers {
namespace {

bool ends_with(const std::string& s, const char* p) {
  std::string_view v(p);
  return s.size() >= v.size() && s.compare(s.size() - v.size(), v.size(), v) == 0;
}

Device device_of_provider(const std::string& provider) {
  std::string p = lower(provider);
  if (p.empty()) return Device::unknown;
  if (p.rfind("cpu", 0) == 0 || contains(p, "dnnl") || contains(p, "xnnpack") || contains(p, "acl")) return Device::cpu;
  if (contains(p, "nnapi") || contains(p, "qnn") || contains(p, "coreml") || contains(p, "vitis") || contains(p, "npu"))
    return Device::npu;
  if (contains(p, "cuda") || contains(p, "tensorrt") || contains(p, "rocm") || contains(p, "migraphx") ||
      contains(p, "dml") || contains(p, "webgpu") || contains(p, "js"))
    return Device::gpu;
  return Device::unknown;
}

std::string fmt_ms(int64_t us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(us) / 1000.0);
  return buf;
}

bool is_memcpy(const std::string& op) { return op == "MemcpyToHost" || op == "MemcpyFromHost"; }

// Kernels when the profile has no model_run events (a profile cut short): every kernel event, one iteration.
std::vector<KernelRecord> single_iteration(const ort::OrtProfile& p) {
  std::vector<KernelRecord> out;
  std::unordered_map<std::string, size_t> index;
  int64_t t0 = -1;
  for (const auto& e : p.events) {
    if (!e.is_kernel()) continue;
    if (t0 < 0) t0 = e.ts_us;
    auto [it, fresh] = index.emplace(e.node_name, out.size());
    if (fresh) {
      KernelRecord k;
      k.name = e.node_name;
      k.op = e.op_name;
      k.device = e.provider;
      k.per_iteration_ms = {0};
      k.start_ms = static_cast<double>(e.ts_us - t0) / 1000.0;
      for (const auto& s : e.input_type_shape) k.input_shapes.push_back(s.dims);
      for (const auto& s : e.output_type_shape) k.output_shapes.push_back(s.dims);
      out.push_back(std::move(k));
    }
    out[it->second].per_iteration_ms[0] += static_cast<double>(e.dur_us) / 1000.0;
  }
  return out;
}

// Element types of each kernel, from its first event (the kernel records keep shapes only).
void add_dtypes(std::vector<KernelRecord>& kernels, const ort::OrtProfile& p) {
  std::unordered_map<std::string, const ort::OrtProfileEvent*> first;
  for (const auto& e : p.events)
    if (e.is_kernel()) first.emplace(e.node_name, &e);
  for (auto& k : kernels) {
    auto it = first.find(k.name);
    if (it == first.end()) continue;
    for (const auto& s : it->second->input_type_shape) k.input_dtypes.push_back(s.dtype);
    for (const auto& s : it->second->output_type_shape) k.output_dtypes.push_back(s.dtype);
    if (!k.input_dtypes.empty()) k.precision = k.input_dtypes.front();
  }
}

// With the device tracer's Kernel events, a GPU node's time is what its kernels took on the device (per run), not
// the host's time to launch them, and its kernels' names become its implementation. A GPU node that launched no
// kernel (a reshape, a copy the tracer does not record) keeps its host time: that is the time it took. Returns
// how many GPU nodes launched none.
int64_t use_device_times(std::vector<KernelRecord>& kernels, const ort::OrtProfile& p, const DeviceKernels& dk) {
  std::unordered_map<std::string, std::vector<size_t>> events_of;  // node -> its Node events
  for (size_t i = 0; i < p.events.size(); ++i)
    if (p.events[i].is_kernel()) events_of[p.events[i].node_name].push_back(i);
  int64_t idle = 0;
  for (auto& k : kernels) {
    std::vector<std::string> names;
    for (size_t i : events_of[k.name]) names.insert(names.end(), dk.by_event[i].names.begin(), dk.by_event[i].names.end());
    if (names.empty()) {
      idle += k.device_class == Device::gpu;
      continue;
    }
    std::fill(k.per_iteration_ms.begin(), k.per_iteration_ms.end(), 0.0);
    for (size_t i : events_of[k.name]) {
      // Without model_run events everything is one iteration (single_iteration); else the event's run.
      const int r = p.runs.empty() ? 0 : p.events[i].run_index;
      if (r < 0 || static_cast<size_t>(r) >= k.per_iteration_ms.size()) continue;
      k.per_iteration_ms[static_cast<size_t>(r)] += static_cast<double>(dk.by_event[i].device_us) / 1000.0;
    }
    k.implementation = kernel_summary(names);
  }
  return idle;
}

// The device kernels no Node event precedes: one layer of their own, so their time is shown, never lost.
KernelRecord unattributed_kernels(const DeviceKernels& dk, size_t iterations) {
  KernelRecord k;
  k.name = "(GPU kernels before any node)";
  k.op = "Kernel";
  k.device_class = Device::gpu;
  k.per_iteration_ms.assign(std::max<size_t>(iterations, 1), 0.0);
  k.per_iteration_ms[0] = static_cast<double>(dk.unattributed_us) / 1000.0;
  return k;
}

class OrtImporter : public Importer {
 public:
  std::string name() const override { return "onnxruntime"; }
  std::vector<std::string> aliases() const override { return {"ort"}; }
  std::string description() const override {
    return "ONNX Runtime profile JSON (any execution provider; 2019 to 1.30 layouts)";
  }
  int recognizes(const InputFile& f) const override {
    char c = first_char(f.text);
    std::string_view head(f.text.data(), std::min<size_t>(f.text.size(), 8192));
    if (c != '[' && c != '{') return 0;
    if (contains(head, "_kernel_time") || contains(head, "\"model_loading_uri\"") ||
        contains(head, "\"session_initialization\"") || contains(head, "\"model_run\""))
      return 10;
    return 0;
  }

  Imported read(const std::vector<InputFile>& files, const ImportOptions& options) const override {
    reject_options(name(), options, {});
    if (files.size() != 1)
      throw UserError("onnxruntime: give one profile per import (got " + std::to_string(files.size()) + " files)");
    const InputFile& f = files[0];
    if (nests_deeper_than(f.text, kMaxJsonDepth))
      throw UserError(f.path + ": nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (not an ORT profile)");
    ort::OrtProfile all = ort::parse_ort_profile(f.text, f.path);
    // Fence events (older versions, some providers) wait around a kernel; they are not the kernel.
    ort::OrtProfile p;
    p.runs = all.runs;
    for (auto& e : all.events)
      if (!(e.is_kernel() && (ends_with(e.name, "_fence_before") || ends_with(e.name, "_fence_after"))))
        p.events.push_back(std::move(e));

    Imported out;
    Measurement& m = out.measurement;
    ort::ProfiledRunResult r;
    r.profile = p;
    m.kernels = p.runs.empty() ? single_iteration(p) : ort::kernel_records(r);
    add_dtypes(m.kernels, p);
    m.kernel_time_step_ms = ort::kOrtKernelTimeStepMs;
    std::set<std::string> providers;
    bool accelerated = false;
    for (auto& k : m.kernels) {
      k.device_class = device_of_provider(k.device);
      accelerated = accelerated || k.device_class == Device::gpu || k.device_class == Device::npu;
      if (is_memcpy(k.op)) k.kind = LayerKind::copy;
      if (!k.device.empty()) providers.insert(k.device);
    }
    for (auto& k : m.kernels)
      k.fallback = accelerated && k.device_class == Device::cpu && k.kind == LayerKind::compute;
    const DeviceKernels dk = device_kernels(p);
    std::string device_line;
    if (dk.any()) {
      const int64_t idle = use_device_times(m.kernels, p, dk);
      if (dk.unattributed) m.kernels.push_back(unattributed_kernels(dk, p.runs.size()));
      device_line = ", " + std::to_string(dk.count) + " GPU kernel events (" + fmt_ms(dk.total_us) +
                    " on the device" + (dk.unattributed ? ", " + std::to_string(dk.unattributed) + " before any node" : "") +
                    (idle ? ", " + std::to_string(idle) + " GPU nodes launched none: host time kept" : "") + ")";
      m.warnings.push_back("GPU nodes are timed by their kernels on the device (the profile's Kernel events), not by "
                           "the host's time to launch them");
    }
    for (const auto& run : p.runs) {
      double ms = static_cast<double>(run.dur_us) / 1000.0;
      m.latencies_ms.push_back(ms);
      m.profiled_latencies_ms.push_back(ms);
      m.profiled_runs_ms.push_back(ms);
    }
    if (!p.runs.empty()) {
      m.wall_s = static_cast<double>(p.runs.back().ts_us + p.runs.back().dur_us - p.runs.front().ts_us) / 1e6;
      m.warnings.push_back("e2e latency is the profiled runs' (profiling on, warm-up included): the profile has no "
                           "run without profiling");
    } else {
      m.warnings.push_back("the profile has no model_run events: kernel times are summed over the whole file");
    }
    for (const auto& e : p.events)
      if (e.cat == "Session" && e.name == "session_initialization") m.load_ms = static_cast<double>(e.dur_us) / 1000.0;
    out.rules = &ort::mapping_rules();
    out.backend.name = "onnxruntime";
    std::string list;
    for (const auto& pr : providers) list += (list.empty() ? "" : ", ") + pr;
    out.backend.runtime = "ONNX Runtime (profile JSON" + (list.empty() ? std::string() : ": " + list) + ")";
    out.backend.options["providers"] = list;
    out.read.push_back(f.path + ": ORT profile, " + std::to_string(p.events.size()) + " events, " +
                       std::to_string(p.runs.size()) + " runs, " + std::to_string(m.kernels.size()) + " kernels" +
                       device_line);
    return out;
  }
};

}  // namespace

const Importer& ort_importer() {
  static const OrtImporter importer;
  return importer;
}

}  // namespace rooflens::importers
