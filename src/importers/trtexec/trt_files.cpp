#include "importers/trtexec/trt_files.h"

#include <algorithm>
#include <cctype>

#include "core/errors.h"
#include "importers/support.h"

namespace rooflens::importers::trt {
namespace {

// The element type a "Format/Datatype" text names: the word that is a dtype ("... row major Int8 format",
// "Row major linear FP32", TensorRT 10's plain "Half").
std::string dtype_of_format(const std::string& format) {
  for (const auto& word : split(format, ' ')) {
    std::string t = onnx_dtype(word);
    if (!t.empty()) return t;
  }
  return "";
}

Tensor tensor_at(const json& v, const Where& w) {
  object_at(v, w);
  Tensor t;
  if (const json* n = optional_member(v, "Name")) t.name = string_at(*n, w.at("Name"));
  if (const json* d = optional_member(v, "Dimensions")) t.dims = dims_at(*d, w.at("Dimensions"));
  if (const json* f = optional_member(v, "Format/Datatype")) t.format = string_at(*f, w.at("Format/Datatype"));
  if (const json* l = optional_member(v, "Location")) t.location = string_at(*l, w.at("Location"));
  t.dtype = dtype_of_format(t.format);
  return t;
}

std::vector<Tensor> tensors_at(const json& layer, const char* key, const Where& w) {
  std::vector<Tensor> out;
  const json* v = optional_member(layer, key);
  if (!v) return out;
  array_at(*v, w.at(key));
  for (size_t i = 0; i < v->size(); ++i) out.push_back(tensor_at((*v)[i], w.at(key).at(i)));
  return out;
}

std::string text_or_number(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

void weights_at(const json& layer, const char* key, const Where& w, std::optional<uint64_t>& count, std::string& type) {
  const json* v = optional_member(layer, key);
  if (!v) return;
  object_at(*v, w.at(key));
  count = static_cast<uint64_t>(count_at(member(*v, "Count", w.at(key)), w.at(key).at("Count")));
  if (const json* t = optional_member(*v, "Type")) type = string_at(*t, w.at(key).at("Type"));
}

LayerInfo layer_at(const json& v, const Where& w) {
  LayerInfo l;
  object_at(v, w);
  l.name = string_at(member(v, "Name", w), w.at("Name"));
  if (const json* t = optional_member(v, "LayerType")) l.layer_type = string_at(*t, w.at("LayerType"));
  if (const json* t = optional_member(v, "ParameterType")) l.parameter_type = string_at(*t, w.at("ParameterType"));
  if (const json* t = optional_member(v, "Origin")) l.origin = string_at(*t, w.at("Origin"));
  if (const json* t = optional_member(v, "TacticName")) l.tactic = string_at(*t, w.at("TacticName"));
  else if (const json* tv = optional_member(v, "TacticValue")) l.tactic = text_or_number(*tv);
  if (const json* m = optional_member(v, "Metadata")) l.metadata = string_at(*m, w.at("Metadata"));
  l.inputs = tensors_at(v, "Inputs", w);
  l.outputs = tensors_at(v, "Outputs", w);
  weights_at(v, "Weights", w, l.weights_count, l.weights_type);
  weights_at(v, "Bias", w, l.bias_count, l.bias_type);
  if (const json* o = optional_member(v, "OutMaps")) l.out_maps = count_at(*o, w.at("OutMaps"));
  if (const json* g = optional_member(v, "Groups")) l.groups = count_at(*g, w.at("Groups"));
  if (const json* k = optional_member(v, "Kernel")) l.kernel = dims_at(*k, w.at("Kernel"));
  return l;
}

// Layers of the engine's other shape profiles carry " [profile N]" (N >= 1); the first has no suffix.
bool other_profile(const std::string& name) {
  size_t pos = 0;
  while ((pos = name.find("[profile ", pos)) != std::string::npos) {
    size_t i = pos + 9;
    while (i < name.size() && name[i] == ' ') ++i;
    size_t d = i;
    while (d < name.size() && std::isdigit(static_cast<unsigned char>(name[d]))) ++d;
    if (d > i && d < name.size() && name[d] == ']' && name.substr(i, d - i) != "0") return true;
    pos = i;
  }
  return false;
}

}  // namespace

FileKind sniff(const InputFile& f) {
  char c = first_char(f.text);
  std::string_view head(f.text.data(), std::min<size_t>(f.text.size(), 4096));
  if (c == '{') {
    if (contains(head, "\"Layers\"")) return FileKind::layer_info;
    if (contains(head, "\"performance_summary\"") || contains(head, "\"device_information\"") ||
        contains(head, "\"inference_options\""))
      return FileKind::profile_metadata;
    if (contains(head, "\"model_options\"") || contains(head, "\"build_options\"")) return FileKind::build_metadata;
  } else if (c == '[') {
    if (contains(head, "\"averageMs\"") || (contains(head, "\"count\"") && contains(head, "\"timeMs\"")))
      return FileKind::profile;
    if (contains(head, "\"latencyMs\"") || contains(head, "\"startEnqMs\"")) return FileKind::times;
    if (contains(head, "\"ComputeCapability\"")) return FileKind::device_metadata;
  }
  return FileKind::none;
}

LayerInfoFile parse_layer_info(const InputFile& f) {
  json doc = parse_json(f);
  Where w{f.path, ""};
  const json& layers = array_at(member(object_at(doc, w), "Layers", w), w.at("Layers"));
  LayerInfoFile out;
  for (size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].is_string())
      throw UserError(f.path + ": Layers[" + std::to_string(i) +
                      "] is only a name: rebuild the engine with --profilingVerbosity=detailed for layer details");
    LayerInfo l = layer_at(layers[i], w.at("Layers").at(i));
    if (l.layer_type == "signal" || l.layer_type == "wait") continue;  // stream synchronisation, not layers
    if (other_profile(l.name)) {
      ++out.other_profiles;
      continue;
    }
    out.layers.push_back(std::move(l));
  }
  if (const json* b = optional_member(doc, "Bindings")) {
    array_at(*b, w.at("Bindings"));
    for (size_t i = 0; i < b->size(); ++i) {
      const json& x = (*b)[i];
      // Plain names (8.x) or objects with a Name (some exports).
      std::string name = x.is_object() ? string_at(member(x, "Name", w.at("Bindings").at(i)), w.at("Bindings").at(i))
                                       : string_at(x, w.at("Bindings").at(i));
      if (!other_profile(name)) out.bindings.push_back(std::move(name));
    }
  }
  return out;
}

ProfileFile parse_profile(const InputFile& f) {
  json doc = parse_json(f);
  Where w{f.path, ""};
  array_at(doc, w);
  ProfileFile out;
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& rec = object_at(doc[i], w.at(i));
    if (const json* c = optional_member(rec, "count")) {
      out.count = count_at(*c, w.at(i).at("count"));
      continue;
    }
    ProfileRow r;
    r.name = string_at(member(rec, "name", w.at(i)), w.at(i).at("name"));
    if (other_profile(r.name)) continue;
    r.average_ms = nonneg_at(member(rec, "averageMs", w.at(i)), w.at(i).at("averageMs"));
    r.time_ms = nonneg_member(rec, "timeMs", w.at(i)).value_or(0);
    r.median_ms = nonneg_member(rec, "medianMs", w.at(i));
    out.rows.push_back(std::move(r));
  }
  if (out.rows.empty()) throw UserError(f.path + ": a trtexec profile without layer rows");
  return out;
}

TimesFile parse_times(const InputFile& f) {
  json doc = parse_json(f);
  Where w{f.path, ""};
  array_at(doc, w);
  TimesFile out;
  double first = 0, last = 0;
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& rec = object_at(doc[i], w.at(i));
    Where at = w.at(i);
    out.latency_ms.push_back(nonneg_at(member(rec, "latencyMs", at), at.at("latencyMs")));
    if (auto v = nonneg_member(rec, "h2dMs", at)) out.h2d_ms.push_back(*v);
    if (auto v = nonneg_member(rec, "computeMs", at)) out.compute_ms.push_back(*v);
    if (auto v = nonneg_member(rec, "d2hMs", at)) out.d2h_ms.push_back(*v);
    auto s = nonneg_member(rec, "startEnqMs", at), e = nonneg_member(rec, "endEnqMs", at);
    if (s && e) {
      if (*e < *s) fail(at.at("endEnqMs"), "ends before startEnqMs");
      out.enqueue_ms.push_back(*e - *s);
    }
    double start = std::min({s.value_or(1e300), nonneg_member(rec, "startH2dMs", at).value_or(1e300),
                             nonneg_member(rec, "startComputeMs", at).value_or(1e300)});
    double end = std::max({nonneg_member(rec, "endD2hMs", at).value_or(0), nonneg_member(rec, "endComputeMs", at).value_or(0)});
    if (start < 1e300 && (i == 0 || start < first)) first = start;
    last = std::max(last, end);
  }
  if (out.latency_ms.empty()) throw UserError(f.path + ": a trtexec timing export without inferences");
  out.span_ms = last > first ? last - first : 0;
  return out;
}

void parse_metadata(const InputFile& f, FileKind kind, Metadata& into) {
  json doc = parse_json(f);
  Where w{f.path, ""};
  if (kind == FileKind::device_metadata) {
    array_at(doc, w);
    if (!doc.empty())
      if (const json* n = optional_member(object_at(doc[0], w.at(0)), "Name")) into.device = string_at(*n, w.at(0).at("Name"));
    return;
  }
  object_at(doc, w);
  auto options = [&](const char* section) {
    const json* s = optional_member(doc, section);
    if (!s) return;
    object_at(*s, w.at(section));
    for (const auto& [k, v] : s->items()) into.options[k] = text_or_number(v);
  };
  if (kind == FileKind::build_metadata) {
    options("model_options");
    options("build_options");
    if (into.options.count("Model")) into.model_path = into.options["Model"];
    if (into.options.count("Precision")) into.precision = into.options["Precision"];
    return;
  }
  if (const json* p = optional_member(doc, "performance_summary")) {
    Where ps = w.at("performance_summary");
    object_at(*p, ps);
    if (const json* l = optional_member(*p, "Latency")) {
      array_at(*l, ps.at("Latency"));
      if (l->size() != 7 && l->size() != 5)
        fail(ps.at("Latency"), "expected 7 statistics (min, max, mean, median, p90, p95, p99) or 5 (older logs)");
      std::vector<double> v;
      for (size_t i = 0; i < l->size(); ++i) v.push_back(nonneg_at((*l)[i], ps.at("Latency").at(i)));
      into.latency = v;
    }
    into.throughput = nonneg_member(*p, "Throughput", ps);
  }
  options("inference_options");
  if (into.options.count("Batch")) {
    auto b = parse_nonneg(into.options["Batch"]);
    if (b && *b >= 1 && *b <= 1e6) into.batch = static_cast<int64_t>(*b);
  }
  if (const json* d = optional_member(doc, "device_information")) {
    object_at(*d, w.at("device_information"));
    if (const json* n = optional_member(*d, "Selected Device"))
      into.device = string_at(*n, w.at("device_information").at("Selected Device"));
  }
}

std::vector<std::string> onnx_layers_of(const std::string& metadata) {
  static const std::string open = "[ONNX Layer: ";
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = metadata.find(open, pos)) != std::string::npos) {
    size_t start = pos + open.size();
    // A name ends at the ']' before a separator (\x1e, \x1f), the next record or the end.
    size_t end = start;
    for (;;) {
      end = metadata.find(']', end);
      if (end == std::string::npos) return out;
      size_t after = end + 1;
      if (after == metadata.size() || metadata[after] == '\x1e' || metadata[after] == '\x1f' ||
          metadata.compare(after, open.size(), open) == 0)
        break;
      ++end;
    }
    out.push_back(metadata.substr(start, end - start));
    pos = end + 1;
  }
  return out;
}

}  // namespace rooflens::importers::trt
