// Kineto's categories have changed case and names over PyTorch releases ("Kernel"/"kernel", "Runtime"/
// "cuda_runtime", "async_gpu"/"ac2g"): they are compared in lower case and each spelling is listed here.
#include "importers/kineto/kineto_trace.h"

#include <algorithm>

namespace rooflens::importers::kineto {
namespace {

enum class Cat { other, kernel, memcpy, memset, launch, op, annotation, flow };

Cat category(const std::string& cat) {
  std::string c = lower(cat);
  if (c == "kernel") return Cat::kernel;
  if (c == "gpu_memcpy" || c == "memcpy") return Cat::memcpy;
  if (c == "gpu_memset" || c == "memset") return Cat::memset;
  if (c == "cuda_runtime" || c == "cuda_driver" || c == "runtime") return Cat::launch;
  if (c == "cpu_op" || c == "operator") return Cat::op;
  if (c == "user_annotation") return Cat::annotation;
  if (c == "ac2g" || c == "async_gpu") return Cat::flow;
  return Cat::other;
}

// pid and tid are numbers or strings ("Spans", "stream 7"): their JSON text identifies them either way.
std::string id_text(const json& e, const char* key) {
  const json* v = optional_member(e, key);
  return v ? v->dump() : "";
}

std::string position_of(const json& e) { return id_text(e, "pid") + "/" + id_text(e, "tid") + "/" + id_text(e, "ts"); }

std::optional<int64_t> arg_count(const json* args, const char* key, const Where& w) {
  const json* v = args ? optional_member(*args, key) : nullptr;
  if (!v) return std::nullopt;
  return count_at(*v, w.at("args").at(key));
}

// Times are µs: since the epoch (~1.7e15 today) or since the trace started. Beyond these a file is lying, and sums
// of such numbers would leave the finite range.
constexpr double kMaxTsUs = 1e17, kMaxDurUs = 1e12;

double time_at(const json& e, const char* key, double max, const Where& w) {
  double v = nonneg_at(member(e, key, w), w.at(key));
  if (v > max) fail(w.at(key), "more than " + std::to_string(static_cast<int64_t>(max)) + " µs");
  return v;
}
double dur_of(const json& e, const Where& w) { return time_at(e, "dur", kMaxDurUs, w); }
double ts_of(const json& e, const Where& w) { return time_at(e, "ts", kMaxTsUs, w); }

GpuEvent gpu_event(const json& e, Cat c, const Where& w) {
  GpuEvent g;
  g.kind = c == Cat::kernel ? GpuKind::kernel : c == Cat::memcpy ? GpuKind::memcpy : GpuKind::memset;
  g.name = string_at(member(e, "name", w), w.at("name"));
  g.ts_us = ts_of(e, w);
  g.dur_us = dur_of(e, w);
  const json* args = optional_member(e, "args");
  if (args) object_at(*args, w.at("args"));
  // The device is args.device; traces without it put the GPU's index in pid.
  const json* pid = optional_member(e, "pid");
  bool pid_is_device = pid && pid->is_number_integer() && pid->get<int64_t>() >= 0 && pid->get<int64_t>() < 4096;
  g.device = arg_count(args, "device", w).value_or(pid_is_device ? pid->get<int64_t>() : 0);
  if (std::optional<int64_t> b = arg_count(args, "bytes", w)) g.bytes = static_cast<uint64_t>(*b);
  g.correlation = arg_count(args, "correlation", w);
  g.position = position_of(e);
  return g;
}

HostEvent host_event(const json& e, const Where& w) {
  HostEvent h;
  h.name = string_at(member(e, "name", w), w.at("name"));
  h.thread = id_text(e, "pid") + "/" + id_text(e, "tid");
  h.ts_us = ts_of(e, w);
  h.dur_us = dur_of(e, w);
  const json* args = optional_member(e, "args");
  if (args) object_at(*args, w.at("args"));
  h.external_id = arg_count(args, "External id", w);
  h.correlation = arg_count(args, "correlation", w);
  h.position = position_of(e);
  return h;
}

void read_devices(const json& doc, const Where& w, Trace& t) {
  const json* props = optional_member(doc, "deviceProperties");
  if (!props) return;
  Where pw = w.at("deviceProperties");
  array_at(*props, pw);
  for (size_t i = 0; i < props->size(); ++i) {
    const json& d = (*props)[i];
    object_at(d, pw.at(i));
    int64_t id = count_at(member(d, "id", pw.at(i)), pw.at(i).at("id"));
    if (const json* n = optional_member(d, "name")) t.device_names[id] = string_at(*n, pw.at(i).at("name"));
  }
}

void read_event(const json& e, const Where& at, Trace& t) {
  object_at(e, at);
  const json* cat = optional_member(e, "cat");
  if (!cat) return;  // metadata ("M") and instant events carry no category the import uses
  Cat c = category(string_at(*cat, at.at("cat")));
  const json* ph = optional_member(e, "ph");
  std::string phase = ph ? string_at(*ph, at.at("ph")) : "X";
  if (c == Cat::flow) {
    const json& id = member(e, "id", at);
    if (phase == "s") t.flow_start_of_id[id.dump()] = position_of(e);
    if (phase == "f") t.flow_id_ending_at[position_of(e)] = id.dump();
    return;
  }
  if (phase != "X") return;  // counters and instants of these categories carry no span
  switch (c) {
    case Cat::kernel:
    case Cat::memcpy:
    case Cat::memset: t.gpu.push_back(gpu_event(e, c, at)); break;
    case Cat::launch: t.launches.push_back(host_event(e, at)); break;
    case Cat::op: t.ops.push_back(host_event(e, at)); break;
    case Cat::annotation: {
      std::string name = string_at(member(e, "name", at), at.at("name"));
      if (name.rfind("ProfilerStep#", 0) == 0) t.steps.push_back({name, ts_of(e, at), dur_of(e, at)});
      break;
    }
    default: break;
  }
}

}  // namespace

Trace read_trace(const json& doc, const Where& w) {
  Trace t;
  Where ew = w;
  const json* events = &doc;
  if (doc.is_object()) {
    ew = w.at("traceEvents");
    events = &member(doc, "traceEvents", w);
    read_devices(doc, w, t);
    if (const json* s = optional_member(doc, "schemaVersion")) t.schema = s->is_string() ? s->get<std::string>() : s->dump();
  }
  array_at(*events, ew);
  for (size_t i = 0; i < events->size(); ++i) read_event((*events)[i], ew.at(i), t);
  std::stable_sort(t.steps.begin(), t.steps.end(), [](const Step& a, const Step& b) { return a.ts_us < b.ts_us; });
  return t;
}

}  // namespace rooflens::importers::kineto
