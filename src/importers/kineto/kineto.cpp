// Kineto trace -> Measurement. Every GPU activity (kernel, memcpy, memset) is tied to the host call that launched
// it — by args.correlation, else by the ac2g flow arrow that ends on it — and that call to the cpu_op it ran in
// (the op whose "External id" it carries, else the innermost cpu_op around it on its thread). With ProfilerStep#N
// annotations each step is an iteration (an activity belongs to the step its launch was in: the GPU runs behind
// the host); without them the trace is one iteration. The k-th launch of one kernel by one op in an iteration is
// one record across iterations, so a model's kernel sequence lines up step by step.
#include "importers/kineto/kineto.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/errors.h"
#include "importers/gpu_activity.h"
#include "importers/kineto/gzip.h"
#include "importers/kineto/kineto_trace.h"
#include "importers/support.h"

namespace rooflens::importers {
namespace {

using kineto::GpuEvent;
using kineto::GpuKind;
using kineto::HostEvent;
using kineto::Trace;

constexpr size_t kMaxTraceBytes = size_t{1} << 30;  // decompressed, as the import command caps a file

// The launch (index into t.launches) of every GPU event; npos when neither a correlation nor a flow names one.
struct Links {
  std::vector<size_t> launch;
  size_t by_flow = 0, unlinked = 0;
};

Links link_launches(const Trace& t) {
  std::map<int64_t, size_t> by_correlation;
  std::map<std::string, size_t> by_position;
  for (size_t i = 0; i < t.launches.size(); ++i) {
    if (t.launches[i].correlation) by_correlation.emplace(*t.launches[i].correlation, i);
    by_position.emplace(t.launches[i].position, i);
  }
  Links l;
  for (const GpuEvent& g : t.gpu) {
    size_t found = std::string::npos;
    if (g.correlation)
      if (auto it = by_correlation.find(*g.correlation); it != by_correlation.end()) found = it->second;
    if (found == std::string::npos) {  // the arrow: "f" on the GPU event, "s" with the same id on the launch
      auto f = t.flow_id_ending_at.find(g.position);
      auto s = f == t.flow_id_ending_at.end() ? t.flow_start_of_id.end() : t.flow_start_of_id.find(f->second);
      auto at = s == t.flow_start_of_id.end() ? by_position.end() : by_position.find(s->second);
      if (at != by_position.end()) found = at->second, ++l.by_flow;
    }
    if (found == std::string::npos) ++l.unlinked;
    l.launch.push_back(found);
  }
  return l;
}

bool spans(const HostEvent& op, double ts) { return op.ts_us <= ts && ts <= op.ts_us + op.dur_us; }

// The cpu_op each launch ran in (index into t.ops; npos: none). One sweep per thread in time order with a stack of
// the open ops (X events on one thread nest), so a long trace costs n log n, not ops × launches.
std::vector<size_t> launching_ops(const Trace& t) {
  std::map<std::string, std::vector<size_t>> ops_of, launches_of;
  for (size_t i = 0; i < t.ops.size(); ++i) ops_of[t.ops[i].thread].push_back(i);
  for (size_t i = 0; i < t.launches.size(); ++i) launches_of[t.launches[i].thread].push_back(i);
  std::map<int64_t, size_t> op_of_external;
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (t.ops[i].external_id) op_of_external.emplace(*t.ops[i].external_id, i);
  std::vector<size_t> out(t.launches.size(), std::string::npos);
  for (auto& [thread, launches] : launches_of) {
    std::vector<size_t>& ops = ops_of[thread];
    std::sort(ops.begin(), ops.end(), [&](size_t a, size_t b) {
      return t.ops[a].ts_us != t.ops[b].ts_us ? t.ops[a].ts_us < t.ops[b].ts_us : t.ops[a].dur_us > t.ops[b].dur_us;
    });
    std::sort(launches.begin(), launches.end(), [&](size_t a, size_t b) { return t.launches[a].ts_us < t.launches[b].ts_us; });
    std::vector<size_t> open;
    size_t next = 0;
    for (size_t li : launches) {
      const HostEvent& l = t.launches[li];
      for (; next < ops.size() && t.ops[ops[next]].ts_us <= l.ts_us; ++next) {
        while (!open.empty() && !spans(t.ops[open.back()], t.ops[ops[next]].ts_us)) open.pop_back();
        open.push_back(ops[next]);
      }
      while (!open.empty() && !spans(t.ops[open.back()], l.ts_us)) open.pop_back();
      if (!open.empty()) out[li] = open.back();
      if (l.external_id)  // newer traces name the op outright; trust it only when the op is around the call
        if (auto it = op_of_external.find(*l.external_id);
            it != op_of_external.end() && t.ops[it->second].thread == thread && spans(t.ops[it->second], l.ts_us))
          out[li] = it->second;
    }
  }
  return out;
}

// The step whose span holds host time `ts_us` (npos: none).
size_t step_at(const std::vector<kineto::Step>& steps, double ts_us) {
  auto it = std::upper_bound(steps.begin(), steps.end(), ts_us,
                             [](double t, const kineto::Step& s) { return t < s.ts_us; });
  if (it == steps.begin()) return std::string::npos;
  --it;
  return ts_us <= it->ts_us + it->dur_us ? static_cast<size_t>(it - steps.begin()) : std::string::npos;
}

KernelRecord record_of(const GpuEvent& g, const std::string& op) {
  KernelRecord k;
  k.device = "cuda:" + std::to_string(g.device);
  k.device_class = Device::gpu;
  k.op = op;
  if (g.kind == GpuKind::kernel) {
    k.name = kernel_base_name(g.name);
    k.implementation = g.name;
    return k;
  }
  k.name = g.name;  // "Memcpy HtoD (Pageable -> Device)", "Memset (Device)"
  if (g.kind == GpuKind::memcpy) k.kind = LayerKind::copy;
  k.flops = 0;  // a copy or a fill computes nothing; its bytes are what it moved
  k.bytes = g.bytes;
  return k;
}

// Every GPU activity with its op and iteration; those launched outside every step are counted, not kept.
struct StepPlacement {
  std::vector<GpuActivity> acts;
  Links links;
  size_t outside = 0;
  double outside_ms = 0;
};

StepPlacement place_activities(const Trace& t) {
  StepPlacement p;
  p.links = link_launches(t);
  std::vector<size_t> op_of_launch = launching_ops(t);
  // Timestamps are µs since the epoch (~1.7e15): taken from the first one before they become ms, or a double's
  // 53 bits would round durations of a few µs.
  double t0 = std::min_element(t.gpu.begin(), t.gpu.end(), [](auto& a, auto& b) { return a.ts_us < b.ts_us; })->ts_us;
  for (size_t i = 0; i < t.gpu.size(); ++i) {
    const GpuEvent& g = t.gpu[i];
    size_t li = p.links.launch[i];
    const HostEvent* launch = li == std::string::npos ? nullptr : &t.launches[li];
    size_t oi = launch ? op_of_launch[li] : std::string::npos;
    std::string op = oi != std::string::npos ? t.ops[oi].name : launch ? launch->name : "";
    size_t iteration = t.steps.empty() ? 0 : step_at(t.steps, launch ? launch->ts_us : g.ts_us);
    if (iteration == std::string::npos) {
      ++p.outside, p.outside_ms += g.dur_us / 1000.0;
      continue;
    }
    GpuActivity a;
    a.record = record_of(g, op);
    a.key = a.record.device + '\x1f' + op + '\x1f' + g.name;
    a.start_ms = (g.ts_us - t0) / 1000.0;
    a.end_ms = a.start_ms + g.dur_us / 1000.0;
    a.iteration = iteration;
    p.acts.push_back(std::move(a));
  }
  return p;
}

[[noreturn]] void no_gpu_activity(const InputFile& f, const Trace& t) {
  if (!t.ops.empty())
    throw UserError(f.path + ": a CPU-only PyTorch profile (" + std::to_string(t.ops.size()) +
                    " cpu_op events, no GPU kernel, memcpy or memset): import kineto reads GPU activity (profile "
                    "with ProfilerActivity.CUDA)");
  throw UserError(f.path + ": traceEvents holds no GPU kernel, memcpy or memset (not a PyTorch GPU profile?)");
}

std::string device_name_of(const Trace& t, Measurement& m) {
  std::map<int64_t, double> busy;
  for (const auto& g : t.gpu) busy[g.device] += g.dur_us;
  auto top = std::max_element(busy.begin(), busy.end(), [](auto& a, auto& b) { return a.second < b.second; });
  if (busy.size() > 1)
    m.warnings.push_back("the trace ran on " + std::to_string(busy.size()) + " GPUs: roofs are those of cuda:" +
                         std::to_string(top->first) + ", the busiest");
  auto it = t.device_names.find(top->first);
  return it == t.device_names.end() ? "" : it->second;
}

class KinetoImporter : public Importer {
 public:
  std::string name() const override { return "kineto"; }
  std::vector<std::string> aliases() const override { return {"pytorch", "torch-profiler"}; }
  std::string description() const override {
    return "PyTorch profiler (Kineto) trace JSON, plain or .gz: GPU kernels per cpu_op and ProfilerStep";
  }
  int recognizes(const InputFile& f) const override {
    std::string unzipped = gunzip_head(f.text, 1 << 16);
    std::string_view head = is_gzip(f.text) ? std::string_view(unzipped)
                                            : std::string_view(f.text.data(), std::min<size_t>(f.text.size(), 1 << 16));
    if (first_char(head) != '{' && first_char(head) != '[') return 0;
    if (!contains(head, "\"traceEvents\"") && first_char(head) != '[') return 0;
    return contains(head, "\"cpu_op\"") || contains(head, "\"cuda_runtime\"") || contains(head, "\"ac2g\"") ||
                   contains(head, "\"deviceProperties\"") || contains(head, "\"gpu_memcpy\"") ||
                   contains(head, "\"ProfilerStep#")
               ? 12
               : 0;
  }

  Imported read(const std::vector<InputFile>& files, const ImportOptions& options) const override {
    reject_options(name(), options, {});
    if (files.size() != 1) throw UserError("kineto: give one trace per import (one rank's file)");
    const InputFile& f = files[0];
    InputFile plain{f.path, is_gzip(f.text) ? gunzip(f.text, f.path, kMaxTraceBytes) : std::string()};
    const InputFile& src = is_gzip(f.text) ? plain : f;
    Trace t = kineto::read_trace(parse_json(src), Where{f.path, ""});
    if (t.gpu.empty()) no_gpu_activity(f, t);

    StepPlacement p = place_activities(t);
    std::vector<GpuActivity>& acts = p.acts;
    if (acts.empty())
      throw UserError(f.path + ": no GPU activity was launched inside a ProfilerStep annotation (" +
                      std::to_string(t.gpu.size()) + " outside them)");

    Imported out;
    Measurement& m = out.measurement;
    std::vector<double> wall;
    for (const auto& s : t.steps) wall.push_back(s.dur_us / 1000.0);
    size_t iterations = t.steps.empty() ? 1 : t.steps.size();
    size_t counted = acts.size();
    GpuRun run = fill_gpu_measurement(m, std::move(acts), iterations, wall, Repeats::apart);
    m.device_name = device_name_of(t, m);
    warn(m, t, p, run);
    out.rules = &plain_mapping_rules();
    out.backend.name = "kineto";
    out.backend.runtime = "PyTorch profiler (Kineto trace" + std::string(t.schema.empty() ? "" : ", schema " + t.schema) + ")";
    if (!m.device_name.empty()) out.backend.options["device"] = m.device_name;
    out.read.push_back(f.path + ": Kineto trace, " + std::to_string(counted) + " GPU activities in " +
                       std::to_string(run.iterations) + (t.steps.empty() ? " iteration (no ProfilerStep)" : " ProfilerStep(s)") +
                       ", " + std::to_string(m.kernels.size()) + " records; " + std::to_string(p.links.by_flow) +
                       " tied to their launch by flow events alone" +
                       (m.device_name.empty() ? "" : "; device " + m.device_name));
    return out;
  }

 private:
  static void warn(Measurement& m, const Trace& t, const StepPlacement& p, const GpuRun& run) {
    if (t.steps.empty())
      m.warnings.push_back("no ProfilerStep annotations: the whole trace is one iteration, its time the GPU's span "
                           "(profiling on)");
    if (p.outside > 0)
      m.warnings.push_back(std::to_string(p.outside) + " GPU activities (" + fmt::format("{:.3f}", p.outside_ms) +
                           " ms) were launched outside every ProfilerStep and are left out");
    if (p.links.unlinked > 0)
      m.warnings.push_back(std::to_string(p.links.unlinked) + " GPU activities name no launch (no correlation, no flow "
                           "event): they are under no cpu_op");
    if (run.overlapped_iterations > 0)
      m.warnings.push_back("GPU activities overlapped (several streams) in " + std::to_string(run.overlapped_iterations) +
                           " iteration(s): the run time is Σ activity time + the GPU's idle gaps, not its span");
  }
};

}  // namespace

const Importer& kineto_importer() {
  static const KinetoImporter importer;
  return importer;
}

}  // namespace rooflens::importers
