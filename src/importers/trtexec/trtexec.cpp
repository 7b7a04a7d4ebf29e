// trtexec files -> Measurement. Every layer of the engine is a kernel: the profile's rows (execution order, times)
// joined to the layer info (types, tensors, precision, tactic, weights and the ONNX nodes TensorRT >= 8.6 records),
// and the layer info's layers the profile has no row for, at 0 ms. Constant and NoOp layers are kept too, at their
// profiled time (0 ms): TensorRT keeps them in the plan but runs no kernel for them. TREx leaves them out of its
// layer count and memory figures; the memory figures here follow it, and the read line gives its layer count.
#include "importers/trtexec/trtexec.h"

#include <map>
#include <numeric>

#include "core/errors.h"
#include "core/saturating.h"
#include "importers/support.h"
#include "importers/trtexec/trt_files.h"
#include "importers/trtexec/trt_names.h"

namespace rooflens::importers {
namespace {

using trt::FileKind;

// A layer the plan keeps but no kernel runs for: a NoOp's output is its input (an elided reformat or reshape), a
// Constant's data lives in the engine. Both take 0 ms in trtexec's profiles.
bool runs_nothing(const trt::LayerInfo& l) { return l.layer_type == "Constant" || l.layer_type == "NoOp"; }

// TREx's report card counts the layers of the first shape profile but these and the shape_call layers it drops.
bool trex_counts(const trt::LayerInfo& l) { return !runs_nothing(l) && l.layer_type != "shape_call"; }

uint64_t elements(const std::vector<int64_t>& dims) {
  uint64_t n = 1;
  for (int64_t d : dims) n = sat_mul(n, static_cast<uint64_t>(d < 0 ? 0 : d));
  return n;
}

uint64_t tensor_bytes(const trt::Tensor& t) {
  return sat_mul(elements(t.dims), static_cast<uint64_t>(dtype_size(t.dtype)));
}

// Bytes of stored weights: Count x the size of Type ("Int8", "Half", "Float", "Int32"; TREx's convention).
uint64_t stored_bytes(std::optional<uint64_t> count, const std::string& type) {
  if (!count) return 0;
  return sat_mul(*count, static_cast<uint64_t>(dtype_size(onnx_dtype(type))));
}

Device trt_device_of(const trt::LayerInfo& l) {
  std::string t = lower(l.layer_type);
  return contains(t, "dla") ? Device::npu : Device::gpu;
}

// MACs where the layer info allows: convolutions (Weights.Count per output element of one map), fully connected
// layers, and matrix multiplies of known dims. Other layers: cost unknown (only bytes are known).
std::optional<uint64_t> macs_of(const trt::LayerInfo& l) {
  const std::string& type = l.parameter_type;
  if ((type == "Convolution" || type == "Deconvolution") && l.weights_count && l.out_maps && *l.out_maps > 0 &&
      !l.outputs.empty()) {
    uint64_t out = elements(l.outputs[0].dims);
    return sat_mul(out / static_cast<uint64_t>(*l.out_maps), *l.weights_count);
  }
  if (type == "FullyConnected" && l.weights_count && !l.inputs.empty() && !l.inputs[0].dims.empty())
    return sat_mul(static_cast<uint64_t>(std::max<int64_t>(l.inputs[0].dims[0], 0)), *l.weights_count);
  if (type == "MatrixMultiply" && l.inputs.size() == 2 && l.inputs[0].dims.size() >= 2 && l.inputs[1].dims.size() >= 2 &&
      !l.outputs.empty()) {
    int64_t k = l.inputs[0].dims.back();
    return sat_mul(elements(l.outputs[0].dims), static_cast<uint64_t>(std::max<int64_t>(k, 0)));
  }
  return std::nullopt;
}

void describe(KernelRecord& k, const trt::LayerInfo& l) {
  k.op = l.parameter_type.empty() ? l.layer_type : l.parameter_type;
  k.implementation = l.tactic;
  k.device_class = trt_device_of(l);
  k.device = k.device_class == Device::npu ? "DLA" : "GPU";
  for (const auto& t : l.inputs) {
    k.input_shapes.push_back(t.dims);
    k.input_dtypes.push_back(t.dtype);
  }
  for (const auto& t : l.outputs) {
    k.output_shapes.push_back(t.dims);
    k.output_dtypes.push_back(t.dtype);
  }
  if (!l.inputs.empty()) k.precision = l.inputs[0].dtype;  // TREx's layer precision: its first input's
  std::string origin = lower(l.origin);
  // A reformatter TensorRT inserted: its Origin says so (8.6+), else its name; a NoOp one was elided at build time.
  bool named_reformatter = origin.empty() && !trt::inserted_for(l.name).empty() &&
                           (l.layer_type == "Reformat" || l.layer_type == "NoOp");
  if (origin == "reformat" || named_reformatter) {
    k.kind = LayerKind::layout;
    k.inserted_for = "reformat";
  } else if (origin == "qdq") {
    k.inserted_for = "";  // the user's own Q/DQ node, run as a reformat
  }
  k.onnx_nodes = trt::onnx_layers_of(l.metadata);
  if (runs_nothing(l)) {  // computes and moves nothing: off the roofline, no bytes in any total
    k.flops = 0;
    k.bytes = 0;
    return;
  }
  uint64_t weights = stored_bytes(l.weights_count, l.weights_type);
  if (l.weights_count) k.weight_bytes = weights;
  uint64_t io = 0;
  for (const auto& t : l.inputs) io = sat_add(io, tensor_bytes(t));
  for (const auto& t : l.outputs) io = sat_add(io, tensor_bytes(t));
  k.bytes = sat_add(io, sat_add(weights, stored_bytes(l.bias_count, l.bias_type)));
  if (auto macs = macs_of(l)) {
    k.macs = *macs;
    k.flops = sat_mul(*macs, 2);
  } else if (k.kind != LayerKind::compute) {
    k.flops = 0;
  }
}

// Classification from the name alone (a profile without layer info).
void describe_by_name(KernelRecord& k) {
  k.device_class = k.name.rfind("{ForeignNode[", 0) == 0 || (k.name.size() > 1 && k.name.front() == '{') ? Device::unknown
                                                                                                          : Device::gpu;
  k.device = k.device_class == Device::gpu ? "GPU" : "";
  std::string why = trt::inserted_for(k.name);
  if (!why.empty()) {
    k.kind = why == "copy" ? LayerKind::copy : LayerKind::layout;
    k.inserted_for = why;
    k.op = "Reformat";
    k.flops = 0;
  }
}

// "36 layers (11 NoOp or Constant: no kernel runs for them; TREx's report card counts 25)": what is kept here beside
// the count TREx shows for the same file.
std::string layer_count_text(const trt::LayerInfoFile& info) {
  size_t idle = 0, counted = 0;
  for (const auto& l : info.layers) {
    idle += runs_nothing(l) ? 1 : 0;
    counted += trex_counts(l) ? 1 : 0;
  }
  std::string out = std::to_string(info.layers.size()) + " layers";
  if (counted == info.layers.size()) return out;
  std::string idle_text = std::to_string(idle) + " NoOp or Constant: no kernel runs for them; ";
  return out + " (" + (idle > 0 ? idle_text : "") + "TREx's report card counts " + std::to_string(counted) + ")";
}

struct Files {
  std::optional<trt::LayerInfoFile> layers;
  std::optional<trt::ProfileFile> profile;
  std::optional<trt::TimesFile> times;
  trt::Metadata meta;
};

Files read_files(const std::vector<InputFile>& files, std::vector<std::string>& read) {
  Files f;
  for (const auto& file : files) {
    FileKind kind = trt::sniff(file);
    auto once = [&](bool present, const char* what) {
      if (present) throw UserError(file.path + ": a second trtexec " + std::string(what) + " (give one per import)");
    };
    switch (kind) {
      case FileKind::layer_info:
        once(f.layers.has_value(), "layer info");
        f.layers = trt::parse_layer_info(file);
        read.push_back(file.path + ": layer info, " + layer_count_text(*f.layers));
        break;
      case FileKind::profile:
        once(f.profile.has_value(), "profile");
        f.profile = trt::parse_profile(file);
        read.push_back(file.path + ": profile, " + std::to_string(f.profile->rows.size()) + " layers over " +
                       std::to_string(f.profile->count) + " iterations");
        break;
      case FileKind::times:
        once(f.times.has_value(), "timing export");
        f.times = trt::parse_times(file);
        read.push_back(file.path + ": timing export, " + std::to_string(f.times->latency_ms.size()) + " inferences");
        break;
      case FileKind::profile_metadata:
      case FileKind::build_metadata:
      case FileKind::device_metadata:
        trt::parse_metadata(file, kind, f.meta);
        read.push_back(file.path + ": TREx metadata");
        break;
      case FileKind::none:
        throw UserError(file.path + ": not a trtexec export (--exportLayerInfo, --exportProfile, --exportTimes) or "
                                    "TREx metadata JSON");
    }
  }
  if (!f.layers && !f.profile && !f.times && !f.meta.latency)
    throw UserError("trtexec: give at least a profile (--exportProfile), layer info (--exportLayerInfo) or timing "
                    "export (--exportTimes)");
  return f;
}

KernelRecord layer_kernel(const trt::LayerInfo& l) {
  KernelRecord k;
  k.name = l.name;
  describe(k, l);
  return k;
}

// The layer info's layer each profile row times (-1: none), by name; a repeated name pairs in order of appearance.
std::vector<int64_t> layers_of_rows(const trt::ProfileFile& profile, const trt::LayerInfoFile& info) {
  std::multimap<std::string, int64_t> by_name;  // equal names keep their insertion order
  for (size_t i = 0; i < info.layers.size(); ++i) by_name.emplace(info.layers[i].name, static_cast<int64_t>(i));
  std::vector<int64_t> out;
  for (const auto& r : profile.rows) {
    auto it = by_name.lower_bound(r.name);
    if (it == by_name.end() || it->first != r.name) {
      out.push_back(-1);
      continue;
    }
    out.push_back(it->second);
    by_name.erase(it);
  }
  return out;
}

// Profile rows in their order, each with its layer info; a layer the profile has no row for goes in before the
// first row of a later layer, at 0 ms (TREx's join gives it 0 too). Rows the layer info lacks are kept by name.
std::vector<KernelRecord> joined_kernels(const trt::ProfileFile& profile, const trt::LayerInfoFile* info,
                                         Measurement& m) {
  std::vector<int64_t> layer_of = info ? layers_of_rows(profile, *info) : std::vector<int64_t>(profile.rows.size(), -1);
  std::vector<bool> timed(info ? info->layers.size() : 0, false);
  for (int64_t i : layer_of)
    if (i >= 0) timed[static_cast<size_t>(i)] = true;
  std::vector<KernelRecord> out;
  size_t next = 0;
  int64_t untimed = 0, unmatched = 0;
  auto untimed_before = [&](size_t end) {
    for (; next < end; ++next)
      if (!timed[next]) out.push_back(layer_kernel(info->layers[next])), ++untimed;
  };
  for (size_t r = 0; r < profile.rows.size(); ++r) {
    const trt::ProfileRow& row = profile.rows[r];
    KernelRecord k;
    if (layer_of[r] >= 0) {
      untimed_before(static_cast<size_t>(layer_of[r]));
      k = layer_kernel(info->layers[static_cast<size_t>(layer_of[r])]);
    } else {
      k.name = row.name;
      describe_by_name(k);
      if (info) ++unmatched;
    }
    k.mean_ms = row.average_ms;
    k.median_ms = row.median_ms;
    out.push_back(std::move(k));
  }
  untimed_before(timed.size());
  if (unmatched > 0)
    m.warnings.push_back(std::to_string(unmatched) + " profiled layer(s) are not in the layer info (another engine, "
                         "or another shape profile?)");
  if (untimed > 0)
    m.warnings.push_back(std::to_string(untimed) + " layer(s) of the layer info have no row in the profile: kept at "
                         "0 ms (a profile of another engine, or another shape profile?)");
  return out;
}

// Every layer of the engine, each once.
std::vector<KernelRecord> kernels_of(const Files& f, Measurement& m) {
  if (f.profile) return joined_kernels(*f.profile, f.layers ? &*f.layers : nullptr, m);
  std::vector<KernelRecord> out;
  if (!f.layers) return out;
  for (const auto& l : f.layers->layers) out.push_back(layer_kernel(l));
  m.warnings.push_back("no profile (--exportProfile): the layers have no times");
  return out;
}

void add_memory(const Files& f, Measurement& m) {
  if (!f.layers) return;
  uint64_t weights = 0, activations = 0;
  for (const auto& l : f.layers->layers) {
    if (!trex_counts(l)) continue;  // TREx's memory figures, as its report card gives them
    weights = sat_add(weights, stored_bytes(l.weights_count, l.weights_type));
    for (const auto* ts : {&l.inputs, &l.outputs})
      for (const auto& t : *ts) activations = sat_add(activations, tensor_bytes(t));
  }
  m.weights_bytes = weights;
  m.activations_bytes = activations;
  for (const auto& l : f.layers->layers)
    for (const auto& t : l.inputs)
      for (const auto& b : f.layers->bindings)
        if (t.name == b && !m.input_shapes.count(b)) m.input_shapes[b] = t.dims;
  if (f.layers->other_profiles > 0)
    m.warnings.push_back(std::to_string(f.layers->other_profiles) +
                         " layer(s) of other shape profiles left out (the first profile is read, as TREx does)");
}

void add_timing(const Files& f, Measurement& m) {
  if (f.times) {
    m.latencies_ms = f.times->latency_ms;
    m.wall_s = f.times->span_ms / 1000.0;
    auto phase = [&m](const char* name, const std::vector<double>& v) {
      if (!v.empty()) m.phases.push_back({name, v});
    };
    phase("enqueue", f.times->enqueue_ms);
    phase("h2d", f.times->h2d_ms);
    phase("compute", f.times->compute_ms);
    phase("d2h", f.times->d2h_ms);
  } else if (f.meta.latency) {
    const auto& v = *f.meta.latency;  // [min, max, mean, median, p90, p95, p99] or [min, max, mean, median, p99]
    LatencyStats s;
    s.min = v[0], s.max = v[1], s.mean = v[2], s.median = v[3];
    s.p99 = v.back();
    if (v.size() == 7) s.p90 = v[4], s.p95 = v[5];
    s.n = 1;  // statistics without samples: the count is unknown
    m.latency_summary = s;
    // trtexec's Throughput counts queries (of `Batch` items each) over all its streams.
    if (f.meta.throughput)
      m.throughput_per_s = *f.meta.throughput * static_cast<double>(std::max<int64_t>(f.meta.batch, 1));
    m.warnings.push_back("e2e latency from TREx's summary statistics (no --exportTimes samples): compare cannot test it");
  }
}

class TrtexecImporter : public Importer {
 public:
  std::string name() const override { return "trtexec"; }
  std::vector<std::string> aliases() const override { return {"trt", "tensorrt", "trex"}; }
  std::string description() const override {
    return "TensorRT trtexec --exportLayerInfo/--exportProfile/--exportTimes JSON and TREx metadata (TensorRT 8.x-10.x)";
  }
  int recognizes(const InputFile& f) const override { return trt::sniff(f) == FileKind::none ? 0 : 10; }

  Imported read(const std::vector<InputFile>& files, const ImportOptions& options) const override {
    reject_options(name(), options, {});
    Imported out;
    Files f = read_files(files, out.read);
    Measurement& m = out.measurement;
    m.kernels = kernels_of(f, m);
    add_memory(f, m);
    add_timing(f, m);
    m.device_name = f.meta.device;
    out.rules = &trt::mapping_rules();
    out.model_path = f.meta.model_path;
    out.batch = f.meta.batch;
    out.backend.name = "tensorrt";
    out.backend.runtime = "TensorRT (trtexec exports" + std::string(m.device_name.empty() ? "" : " from " + m.device_name) + ")";
    for (const auto& [k, v] : f.meta.options) out.backend.options[k] = v;
    if (!m.device_name.empty()) out.backend.options["device"] = m.device_name;
    return out;
  }
};

}  // namespace

const Importer& trtexec_importer() {
  static const TrtexecImporter importer;
  return importer;
}

}  // namespace rooflens::importers
