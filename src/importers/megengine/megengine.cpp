// MegEngine profile -> Measurement. Each operator's time on a clock is, as profile_analyze computes it, the
// longest over its streams of (end - start), or (kern - start) with end=kern ("only wait time" in MegEngine's
// words); times are seconds in the file. Operators run in the order they started on that clock. The footprint
// gives each operator's computation (FLOPs as MegEngine counts them) and memory (bytes), kept as the layer's cost
// when no ONNX model is given. The profile is one iteration: its span is the run.
#include "importers/megengine/megengine.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "importers/support.h"

namespace rooflens::importers {
namespace {

std::string dtype_of_var(const json& vars, const json& id) {
  if (!vars.is_object() || !(id.is_string() || id.is_number_integer())) return "";
  std::string key = id.is_string() ? id.get<std::string>() : std::to_string(id.get<int64_t>());
  const json* v = optional_member(vars, key);
  if (!v) return "";
  const json* plan = optional_member(*v, "mem_plan");
  const json* layout = plan ? optional_member(*plan, "layout") : nullptr;
  const json* dtype = layout ? optional_member(*layout, "dtype") : nullptr;
  if (!dtype || !dtype->is_string()) return "";
  std::string d = lower(dtype->get<std::string>());
  if (d == "float32") return "float";
  if (d == "float16") return "float16";
  if (d == "bfloat16") return "bfloat16";
  if (d == "int8" || d == "quantizeds8") return "int8";
  if (d == "uint8" || d == "quantized8asymm") return "uint8";
  if (d == "int32" || d == "quantizeds32") return "int32";
  if (d == "int16" || d == "quantizeds16") return "int16";
  return onnx_dtype(d);
}

std::vector<std::vector<int64_t>> shapes_at(const json* v, const Where& w) {
  std::vector<std::vector<int64_t>> out;
  if (!v) return out;
  array_at(*v, w);
  for (size_t i = 0; i < v->size(); ++i) out.push_back(dims_at((*v)[i], w.at(i)));
  return out;
}

Device device_of_stream(const std::string& s) {
  std::string l = lower(s);
  if (l.rfind("gpu", 0) == 0 || l.rfind("cuda", 0) == 0 || l.rfind("rocm", 0) == 0) return Device::gpu;
  if (l.rfind("cpu", 0) == 0 || l.rfind("multithread", 0) == 0) return Device::cpu;
  if (l.rfind("atlas", 0) == 0 || l.rfind("cambricon", 0) == 0) return Device::npu;
  return Device::unknown;
}

struct Timed {
  KernelRecord k;
  double start_s = 0, end_s = 0;
};

class MegEngineImporter : public Importer {
 public:
  std::string name() const override { return "megengine"; }
  std::vector<std::string> aliases() const override { return {"mge"}; }
  std::string description() const override {
    return "MegEngine load_and_run --profile JSON (--option clock=device|host, end=end|kern)";
  }
  int recognizes(const InputFile& f) const override {
    std::string_view head(f.text.data(), std::min<size_t>(f.text.size(), 1 << 16));
    if (first_char(f.text) != '{') return 0;
    return contains(head, "\"graph_exec\"") || (contains(head, "\"profiler\"") && contains(head, "\"opr_footprint\"")) ? 10 : 0;
  }

  Imported read(const std::vector<InputFile>& files, const ImportOptions& options) const override {
    reject_options(name(), options, {"clock", "end"});
    const std::string clock = option_choice(name(), options, "clock", {"device", "host"}, "device");
    const std::string end_key = option_choice(name(), options, "end", {"end", "kern"}, "end");
    if (files.size() != 1) throw UserError("megengine: give one profile per import");
    const InputFile& f = files[0];
    json doc = parse_json(f);
    Where w{f.path, ""};
    object_at(doc, w);
    const json& graph = object_at(member(doc, "graph_exec", w), w.at("graph_exec"));
    const json& oprs = object_at(member(graph, "operator", w.at("graph_exec")), w.at("graph_exec").at("operator"));
    const json* vars = optional_member(graph, "var");
    const json& profiler = object_at(member(doc, "profiler", w), w.at("profiler"));
    const json* times = optional_member(profiler, clock);
    if (!times) fail(w.at("profiler").at(clock), "missing (try --option clock=" + std::string(clock == "device" ? "host" : "device") + ")");
    object_at(*times, w.at("profiler").at(clock));
    const json* footprint = optional_member(profiler, "opr_footprint");

    std::vector<Timed> timed;
    for (const auto& [id, entry] : times->items()) {
      Where at = w.at("profiler").at(clock).at(id);
      object_at(entry, at);
      const json* opr = optional_member(oprs, id);
      if (!opr) fail(at, "names an operator graph_exec.operator lacks");
      Where ow = w.at("graph_exec").at("operator").at(id);
      Timed t;
      t.k.name = string_at(member(*opr, "name", ow), ow.at("name"));
      t.k.op = string_at(member(*opr, "type", ow), ow.at("type"));
      double longest = -1, first = 1e300, last = 0;
      for (const auto& [stream, span] : entry.items()) {
        Where sw = at.at(stream);
        object_at(span, sw);
        double s = nonneg_at(member(span, "start", sw), sw.at("start"));
        double e = nonneg_at(member(span, end_key, sw), sw.at(end_key));
        if (e < s) fail(sw.at(end_key), "is before start");
        if (e - s > longest) {
          longest = e - s;
          t.k.device = stream;
        }
        first = std::min(first, s);
        last = std::max(last, e);
      }
      if (longest < 0) continue;  // no stream timed it
      t.start_s = first;
      t.end_s = last;
      t.k.per_iteration_ms = {longest * 1000.0};
      t.k.device_class = device_of_stream(t.k.device);
      if (const json* in = optional_member(*opr, "input"); in && in->is_array())
        for (const auto& v : *in) t.k.input_dtypes.push_back(vars ? dtype_of_var(*vars, v) : "");
      if (const json* o = optional_member(*opr, "output"); o && o->is_array())
        for (const auto& v : *o) t.k.output_dtypes.push_back(vars ? dtype_of_var(*vars, v) : "");
      if (!t.k.input_dtypes.empty()) t.k.precision = t.k.input_dtypes.front();
      if (t.k.op == "Copy") t.k.kind = LayerKind::copy;
      if (const json* fp = footprint ? optional_member(*footprint, id) : nullptr) {
        Where fw = w.at("profiler").at("opr_footprint").at(id);
        object_at(*fp, fw);
        if (auto c = nonneg_member(*fp, "computation", fw); c && *c < 1.8e19) t.k.flops = static_cast<uint64_t>(*c);
        if (auto b = nonneg_member(*fp, "memory", fw); b && *b < 1.8e19) t.k.bytes = static_cast<uint64_t>(*b);
        t.k.input_shapes = shapes_at(optional_member(*fp, "in_shapes"), fw.at("in_shapes"));
        t.k.output_shapes = shapes_at(optional_member(*fp, "out_shapes"), fw.at("out_shapes"));
      }
      timed.push_back(std::move(t));
    }
    if (timed.empty()) throw UserError(f.path + ": profiler." + clock + " times no operator");
    std::stable_sort(timed.begin(), timed.end(), [](const Timed& a, const Timed& b) { return a.start_s < b.start_s; });
    Imported out;
    Measurement& m = out.measurement;
    double t0 = timed.front().start_s, t1 = 0;
    for (auto& t : timed) {
      t.k.start_ms = (t.start_s - t0) * 1000.0;
      t1 = std::max(t1, t.end_s);
      m.kernels.push_back(std::move(t.k));
    }
    double span_ms = (t1 - t0) * 1000.0;
    m.profiled_runs_ms = {span_ms};
    m.profiled_latencies_ms = {span_ms};
    m.latencies_ms = {span_ms};
    m.warnings.push_back("one profiled iteration: e2e latency is its span on the " + clock + " clock (profiling on)");
    out.rules = &plain_mapping_rules();
    out.backend.name = "megengine";
    out.backend.runtime = "MegEngine (load_and_run --profile JSON, " + clock + " clock, " + end_key + " time)";
    out.backend.options = {{"clock", clock}, {"end", end_key}};
    out.read.push_back(f.path + ": MegEngine profile, " + std::to_string(m.kernels.size()) + " operators timed on the " +
                       clock + " clock");
    return out;
  }
};

}  // namespace

const Importer& megengine_importer() {
  static const MegEngineImporter importer;
  return importer;
}

}  // namespace rooflens::importers
