// JSON form of the Report. Field order is fixed (ordered_json) so write -> read -> write is byte-identical.
#include "core/json_fields.h"

#include "core/capacity_json.h"
#include "core/serving_json.h"
#include "core/errors.h"
#include "core/memory_json.h"
#include "core/repetitions.h"

namespace rooflens {
namespace {

// A closed-set field read strictly: nlohmann's enum mapping would turn an unknown string into the first value.
template <class E>
E checked_enum(const json& v, const char* field, std::initializer_list<const char*> allowed) {
  std::string s = v.get<std::string>();
  for (const char* a : allowed)
    if (s == a) return v.get<E>();
  std::string list;
  for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + "\"" + a + "\"";
  throw UserError(std::string(field) + " must be one of " + list + ", not \"" + s + "\"");
}

}  // namespace

const char* to_string(Severity s) {
  switch (s) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "?";
}

Severity parse_severity(const std::string& text, const std::string& flag) {
  if (text == "info") return Severity::info;
  if (text == "warning") return Severity::warning;
  if (text == "error") return Severity::error;
  throw UsageError(flag + ": '" + text + "' is not a severity (info, warning or error)");
}

ROOFLENS_JSON_FIELDS(Component, name, version)
namespace {
struct ToolCore : ToolInfo {};
ROOFLENS_JSON_FIELDS(ToolCore, name, version, command)
}  // namespace
void to_json(json& j, const ToolInfo& t) {
  to_json(j, static_cast<const ToolCore&>(t));
  if (!t.commit.empty()) j["commit"] = t.commit;
  if (!t.built_with.empty()) j["built_with"] = t.built_with;
}
void from_json(const json& j, ToolInfo& t) {
  from_json(j, static_cast<ToolCore&>(t));
  t.commit = j.value("commit", std::string());
  if (j.contains("built_with")) j.at("built_with").get_to(t.built_with);
}

ROOFLENS_JSON_FIELDS(TensorSummary, name, dtype, shape, dim_names)

NLOHMANN_JSON_SERIALIZE_ENUM(NodeExecution, {{NodeExecution::Run, "run"},
                                            {NodeExecution::NotTaken, "not_taken"},
                                            {NodeExecution::NotCounted, "not_counted"}})
NLOHMANN_JSON_SERIALIZE_ENUM(ShapeSource, {{ShapeSource::Static, "static"}, {ShapeSource::Runtime, "runtime"}})

namespace {
// The fields of the first schema: required on read.
struct NodeCore : NodeAnalysis {};
ROOFLENS_JSON_FIELDS(NodeCore, index, name, op, domain, graph, inputs, outputs, input_shapes, output_shapes, input_dtypes,
                    output_dtypes, flops, macs, params, bytes_read, bytes_written, intensity, cost_known,
                    shapes_resolved, note)

// Fields added later: written only when not the default (reports stay as they were for models without control
// flow), read with the default when absent (older reports).
template <typename V>
void put_unless(json& j, const char* key, const V& v, const V& def) {
  if (!(v == def)) j[key] = v;
}
template <typename V>
void get_or(const json& j, const char* key, V& v) {
  if (auto it = j.find(key); it != j.end()) it->get_to(v);
}
}  // namespace

void to_json(json& j, const NodeAnalysis& n) {
  to_json(j, static_cast<const NodeCore&>(n));
  put_unless(j, "execution", n.execution, NodeExecution::Run);
  put_unless(j, "iterations", n.iterations, int64_t{1});
  put_unless(j, "shape_source", n.shape_source, ShapeSource::Static);
  put_unless(j, "input_read_bytes", n.input_read_bytes, std::vector<uint64_t>{});
  put_unless(j, "padding_macs", n.padding_macs, uint64_t{0});
}
void from_json(const json& j, NodeAnalysis& n) {
  from_json(j, static_cast<NodeCore&>(n));
  get_or(j, "execution", n.execution);
  get_or(j, "iterations", n.iterations);
  get_or(j, "shape_source", n.shape_source);
  get_or(j, "input_read_bytes", n.input_read_bytes);
  get_or(j, "padding_macs", n.padding_macs);
  if (!n.input_read_bytes.empty() && n.input_read_bytes.size() != n.inputs.size())
    throw UserError("node '" + n.name + "': input_read_bytes has " + std::to_string(n.input_read_bytes.size()) +
                    " entries for " + std::to_string(n.inputs.size()) + " inputs");
  if (n.padding_macs > n.macs)
    throw UserError("node '" + n.name + "': padding_macs exceeds macs");
}

ROOFLENS_JSON_FIELDS(SubgraphSummary, graph, node, attribute, execution, iterations, nodes, flops, macs, bytes_read,
                    bytes_written)

ROOFLENS_JSON_FIELDS(OpTypeSummary, op, domain, count, flops, macs, params, bytes_read, bytes_written, unknown)

ROOFLENS_JSON_FIELDS(Totals, flops, macs, params, bytes_read, bytes_written, nodes, unknown_cost_nodes, unresolved_nodes, intensity)

void to_json(json& j, const Analysis& a);
void from_json(const json& j, Analysis& a);

namespace {
struct AnalysisCore : Analysis {};
ROOFLENS_JSON_FIELDS(AnalysisCore, totals, op_types, unknown_ops, notes, nodes)
struct ModelCore : ModelInfo {};
ROOFLENS_JSON_FIELDS(ModelCore, path, name, file_bytes, ir_version, producer_name, producer_version, opsets, inputs,
                    outputs, initializers, weight_bytes, analysis)
}  // namespace

void to_json(json& j, const Analysis& a) {
  to_json(j, static_cast<const AnalysisCore&>(a));
  if (!a.subgraphs.empty()) j["subgraphs"] = a.subgraphs;
}
void from_json(const json& j, Analysis& a) {
  from_json(j, static_cast<AnalysisCore&>(a));
  get_or(j, "subgraphs", a.subgraphs);
}

void to_json(json& j, const ModelInfo& m) {
  to_json(j, static_cast<const ModelCore&>(m));
  put_unless(j, "constant_tensors", m.constant_tensors, int64_t{0});
  if (m.memory) j["memory"] = *m.memory;
  if (m.int8_weights) j["int8_weights"] = *m.int8_weights;
}
void from_json(const json& j, ModelInfo& m) {
  from_json(j, static_cast<ModelCore&>(m));
  get_or(j, "constant_tensors", m.constant_tensors);
  if (j.contains("memory")) {
    m.memory = j.at("memory").get<ModelMemory>();
    check_model_memory(*m.memory, m.analysis.nodes.size());
  }
  if (j.contains("int8_weights")) m.int8_weights = j.at("int8_weights").get<Int8Weights>();
}


// ---- hardware ----
// Writers always emit every field (so round trips are byte-identical); readers require only what a
// hand-written datasheet must give (source, compute[], memory[]) and default the rest.

void to_json(json& j, const CacheInfo& c) {
  j = json{{"level", c.level}, {"size_bytes", c.size_bytes}, {"instances", c.instances},
            {"cores_sharing", c.cores_sharing}};
}
void from_json(const json& j, CacheInfo& c) {
  j.at("level").get_to(c.level);
  j.at("size_bytes").get_to(c.size_bytes);
  c.instances = optional_integer(j, "instances", int64_t{0});
  c.cores_sharing = optional_integer(j, "cores_sharing", int64_t{0});
}

void to_json(json& j, const MachineDesc& m) {
  j = json{{"vendor", m.vendor}, {"model", m.model}, {"signature", m.signature}, {"sockets", m.sockets}, {"cores", m.cores},
            {"threads", m.threads}, {"numa_nodes", m.numa_nodes}, {"memory_bytes", m.memory_bytes},
            {"mhz", m.mhz}, {"os", m.os}, {"kernel", m.kernel}, {"isa", m.isa}, {"caches", m.caches}};
}
void from_json(const json& j, MachineDesc& m) {
  m.vendor = j.value("vendor", std::string());
  m.model = j.value("model", std::string());
  m.signature = j.value("signature", std::string());
  m.sockets = optional_integer(j, "sockets", int64_t{0});
  m.cores = optional_integer(j, "cores", int64_t{0});
  m.threads = optional_integer(j, "threads", int64_t{0});
  m.numa_nodes = optional_integer(j, "numa_nodes", int64_t{0});
  m.memory_bytes = optional_integer(j, "memory_bytes", uint64_t{0});
  m.mhz = j.value("mhz", 0.0);
  m.os = j.value("os", std::string());
  m.kernel = j.value("kernel", std::string());
  if (j.contains("isa")) j.at("isa").get_to(m.isa);
  if (j.contains("caches")) j.at("caches").get_to(m.caches);
}

ROOFLENS_JSON_FIELDS(ComputeRoof, name, isa, dtype, threads, gflops)

void to_json(json& j, const MemoryRoof& m) {
  j = json{{"level", m.level}, {"kernel", m.kernel}, {"threads", m.threads}, {"gbps", m.gbps},
            {"working_set_bytes", m.working_set_bytes}};
}
void from_json(const json& j, MemoryRoof& m) {
  j.at("level").get_to(m.level);
  j.at("kernel").get_to(m.kernel);
  j.at("threads").get_to(m.threads);
  j.at("gbps").get_to(m.gbps);
  m.working_set_bytes = optional_integer(j, "working_set_bytes", uint64_t{0});
}

ROOFLENS_JSON_FIELDS(SweepPoint, kernel, threads, working_set_bytes, gbps)
ROOFLENS_JSON_FIELDS(MemoryLevel, level, threads, first_bytes, last_bytes, reported_bytes)

ROOFLENS_JSON_FIELDS(HwError, benchmark, message)

ROOFLENS_JSON_FIELDS(EngineRoofs, engine, runtime, measured_at, quick, compute, memory, levels, sweep, notes)

void to_json(json& j, const HardwareInfo& h) {
  j = json{{"source", h.source}, {"cache_key", h.cache_key}, {"measured_at", h.measured_at}, {"quick", h.quick},
            {"machine", h.machine}, {"compute", h.compute}, {"memory", h.memory}, {"levels", h.levels},
            {"sweep", h.sweep}, {"notes", h.notes}, {"warnings", h.warnings}, {"errors", h.errors}};
  if (!h.engines.empty()) j["engines"] = h.engines;  // added with the WebAssembly roofs: written only when measured
}
void from_json(const json& j, HardwareInfo& h) {
  j.at("source").get_to(h.source);
  if (h.source != "measured" && h.source != "datasheet" && h.source != "profile")
    throw UserError("hardware.source must be \"measured\", \"datasheet\" or \"profile\", not \"" + h.source + "\"");
  h.cache_key = j.value("cache_key", std::string());
  h.measured_at = j.value("measured_at", std::string());
  h.quick = j.value("quick", false);
  if (j.contains("machine")) j.at("machine").get_to(h.machine);
  j.at("compute").get_to(h.compute);
  j.at("memory").get_to(h.memory);
  if (j.contains("levels")) j.at("levels").get_to(h.levels);
  if (j.contains("sweep")) j.at("sweep").get_to(h.sweep);
  if (j.contains("notes")) j.at("notes").get_to(h.notes);
  if (j.contains("warnings")) j.at("warnings").get_to(h.warnings);
  if (j.contains("errors")) j.at("errors").get_to(h.errors);
  if (j.contains("engines")) j.at("engines").get_to(h.engines);
}

// ---- profile ----
void to_json(json& j, const LevelPoint& p) {
  j = json{{"level", p.level}, {"bytes", p.bytes}, {"intensity", p.intensity}, {"gbps", p.gbps},
           {"bound", p.bound}, {"efficiency", p.efficiency}, {"roof", p.roof}};
  if (!p.attribution_error.empty()) j["attribution_error"] = p.attribution_error;
}
void from_json(const json& j, LevelPoint& p) {
  j.at("level").get_to(p.level);
  p.bytes = optional_integer(j, "bytes", uint64_t{0});
  j.at("intensity").get_to(p.intensity);
  j.at("gbps").get_to(p.gbps);
  j.at("bound").get_to(p.bound);
  j.at("efficiency").get_to(p.efficiency);
  j.at("roof").get_to(p.roof);
  p.attribution_error = j.value("attribution_error", std::string());
}
ROOFLENS_JSON_FIELDS(LatencyStats, n, min, max, mean, median, p90, p95, p99, std, cv)
void to_json(json& j, const Layer& l) {
  j = json{{"name", l.name}, {"op", l.op}, {"provider", l.provider}, {"onnx_nodes", l.onnx_nodes}, {"alias", l.alias},
           {"time_ms", l.time_ms}, {"share", l.share}, {"flops", l.flops}, {"macs", l.macs}, {"bytes", l.bytes},
           {"cost_known", l.cost_known}, {"intensity", l.intensity}, {"gflops", l.gflops}, {"gbps", l.gbps},
           {"bound", l.bound}, {"efficiency", l.efficiency}, {"roof", l.roof}, {"input_shapes", l.input_shapes},
           {"output_shapes", l.output_shapes}, {"start_ms", l.start_ms}};
  // Added with lint: written only when known, so reports of older versions round-trip byte for byte.
  if (l.kind != LayerKind::compute) j["kind"] = l.kind;
  if (l.device != Device::unknown) j["device"] = l.device;
  if (!l.input_dtypes.empty()) j["input_dtypes"] = l.input_dtypes;
  if (!l.output_dtypes.empty()) j["output_dtypes"] = l.output_dtypes;
  // Added with import, likewise.
  if (l.mean_ms) j["mean_ms"] = *l.mean_ms;
  if (!l.precision.empty()) j["precision"] = l.precision;
  if (!l.implementation.empty()) j["implementation"] = l.implementation;
  if (!l.inserted_for.empty()) j["inserted_for"] = l.inserted_for;
  if (l.fallback) j["fallback"] = true;
  if (l.weight_bytes) j["weight_bytes"] = l.weight_bytes;
  // Added with the mapping-truth work, likewise.
  if (l.bytes_source != BytesSource::analysis) j["bytes_source"] = l.bytes_source;
  if (l.padding_macs) j["padding_macs"] = l.padding_macs;
  if (!l.attribution_error.empty()) j["attribution_error"] = l.attribution_error;
  if (l.bytes_written) j["bytes_written"] = l.bytes_written;  // added with the read/write roof, likewise
  if (!l.levels.empty()) j["levels"] = l.levels;  // added with the hierarchical roofline, likewise
  if (l.cpu_efficiency) {  // added with the WebAssembly roofs, likewise
    j["cpu_efficiency"] = *l.cpu_efficiency;
    j["cpu_roof"] = l.cpu_roof;
  }
}

void from_json(const json& j, Layer& l) {
  j.at("name").get_to(l.name);
  j.at("op").get_to(l.op);
  j.at("provider").get_to(l.provider);
  j.at("onnx_nodes").get_to(l.onnx_nodes);
  j.at("alias").get_to(l.alias);
  j.at("time_ms").get_to(l.time_ms);
  j.at("share").get_to(l.share);
  j.at("flops").get_to(l.flops);
  j.at("macs").get_to(l.macs);
  j.at("bytes").get_to(l.bytes);
  j.at("cost_known").get_to(l.cost_known);
  j.at("intensity").get_to(l.intensity);
  j.at("gflops").get_to(l.gflops);
  j.at("gbps").get_to(l.gbps);
  j.at("bound").get_to(l.bound);
  j.at("efficiency").get_to(l.efficiency);
  j.at("roof").get_to(l.roof);
  j.at("input_shapes").get_to(l.input_shapes);
  j.at("output_shapes").get_to(l.output_shapes);
  j.at("start_ms").get_to(l.start_ms);
  if (j.contains("kind")) l.kind = checked_enum<LayerKind>(j.at("kind"), "kind", {"compute", "layout", "copy"});
  if (j.contains("device")) l.device = checked_enum<Device>(j.at("device"), "device", {"", "cpu", "gpu", "npu"});
  if (j.contains("input_dtypes")) j.at("input_dtypes").get_to(l.input_dtypes);
  if (j.contains("output_dtypes")) j.at("output_dtypes").get_to(l.output_dtypes);
  if (j.contains("mean_ms")) l.mean_ms = j.at("mean_ms").get<double>();
  l.precision = j.value("precision", std::string());
  l.implementation = j.value("implementation", std::string());
  l.inserted_for = j.value("inserted_for", std::string());
  l.fallback = j.value("fallback", false);
  l.weight_bytes = optional_integer(j, "weight_bytes", uint64_t{0});
  if (j.contains("bytes_source"))
    l.bytes_source = checked_enum<BytesSource>(j.at("bytes_source"), "bytes_source",
                                                {"analysis", "runtime_writes", "runtime", "view", "source"});
  l.padding_macs = optional_integer(j, "padding_macs", uint64_t{0});
  if (l.padding_macs > l.macs) throw UserError("layer '" + l.name + "': padding_macs exceeds macs");
  l.attribution_error = j.value("attribution_error", std::string());
  l.bytes_written = optional_integer(j, "bytes_written", uint64_t{0});
  if (l.bytes_written > l.bytes) throw UserError("layer '" + l.name + "': bytes_written exceeds bytes");
  if (j.contains("levels")) j.at("levels").get_to(l.levels);
  if (j.contains("cpu_efficiency")) l.cpu_efficiency = j.at("cpu_efficiency").get<double>();
  l.cpu_roof = j.value("cpu_roof", std::string());
}
ROOFLENS_JSON_FIELDS(NodeFate, name, fate)
ROOFLENS_JSON_FIELDS(PhaseStats, name, ms)
ROOFLENS_JSON_FIELDS(ReferenceTiming, model, name, latencies_ms, repetitions)

// The run key: label (derived, written for readers such as the HTML page; never read back), the backend (only in
// reports of several), batch, dims, threads.
static void key_to_json(json& j, const RunKey& k) {
  j["label"] = k.label();
  if (!k.backend.empty()) j["backend"] = k.backend;
  j["batch"] = k.batch;
  j["dims"] = k.dims;
  j["threads"] = k.threads;
}
static void key_from_json(const json& j, RunKey& k) {
  k.backend = j.value("backend", std::string());
  j.at("batch").get_to(k.batch);
  j.at("dims").get_to(k.dims);
  j.at("threads").get_to(k.threads);
}

void to_json(json& j, const ProfileRun& r) {
  j = json::object();
  key_to_json(j, r);
  json rest{{"latency_ms", r.latency_ms},
            {"throughput_per_s", r.throughput_per_s},
            {"wall_s", r.wall_s},
            {"stop_reason", r.stop_reason},
            {"load_ms", r.load_ms},
            {"profiled_latency_ms", r.profiled_latency_ms},
            {"profiling_overhead", r.profiling_overhead},
            {"coverage", r.coverage},
            {"peak_rss_bytes", r.peak_rss_bytes},
            {"flops", r.flops},
            {"macs", r.macs},
            {"gflops", r.gflops},
            {"layers", r.layers},
            {"unowned", r.unowned},
            {"unmapped_kernels", r.unmapped_kernels},
            {"warnings", r.warnings}};
  j.update(rest);
  // Fields later versions added are written only when set and read when present, so older reports still load
  // and round trips stay byte-identical: the runs of --repeat, and why layers are missing.
  if (!r.repetitions.empty()) j["repetitions"] = r.repetitions;
  j["latencies_ms"] = r.latencies_ms;
  if (!r.repetition_page_faults.empty()) j["repetition_page_faults"] = r.repetition_page_faults;
  if (r.page_faults_per_run) j["page_faults_per_run"] = *r.page_faults_per_run;
  if (!r.layers_error.empty()) j["layers_error"] = r.layers_error;
  if (!r.roofs_engine.empty()) j["roofs_engine"] = r.roofs_engine;
  if (r.between_kernels_ms) j["between_kernels_ms"] = *r.between_kernels_ms;
  if (r.profiled_run_ms) j["profiled_run_ms"] = *r.profiled_run_ms;
  if (!r.phases.empty()) j["phases"] = r.phases;
  if (r.weights_bytes) j["weights_bytes"] = *r.weights_bytes;
  if (r.activations_bytes) j["activations_bytes"] = *r.activations_bytes;
  if (r.reference) j["reference"] = *r.reference;
  if (r.live_from) j["live_from"] = *r.live_from;
  if (!r.settings.empty()) j["settings"] = r.settings;
  if (r.threads_observed) j["threads_observed"] = *r.threads_observed;
  if (r.dispatch) j["dispatch"] = *r.dispatch;
  if (r.memory) j["memory"] = *r.memory;
  if (r.int8_check) j["int8_check"] = *r.int8_check;
}

void from_json(const json& j, ProfileRun& r) {
  key_from_json(j, r);
  j.at("latency_ms").get_to(r.latency_ms);
  j.at("throughput_per_s").get_to(r.throughput_per_s);
  j.at("wall_s").get_to(r.wall_s);
  j.at("stop_reason").get_to(r.stop_reason);
  j.at("load_ms").get_to(r.load_ms);
  j.at("profiled_latency_ms").get_to(r.profiled_latency_ms);
  j.at("profiling_overhead").get_to(r.profiling_overhead);
  j.at("coverage").get_to(r.coverage);
  j.at("peak_rss_bytes").get_to(r.peak_rss_bytes);
  j.at("flops").get_to(r.flops);
  j.at("macs").get_to(r.macs);
  j.at("gflops").get_to(r.gflops);
  j.at("layers").get_to(r.layers);
  j.at("unowned").get_to(r.unowned);
  j.at("unmapped_kernels").get_to(r.unmapped_kernels);
  j.at("warnings").get_to(r.warnings);
  j.at("latencies_ms").get_to(r.latencies_ms);
  r.layers_error = j.value("layers_error", std::string());
  r.roofs_engine = j.value("roofs_engine", std::string());
  if (j.contains("between_kernels_ms")) r.between_kernels_ms = j.at("between_kernels_ms").get<double>();
  if (j.contains("profiled_run_ms")) r.profiled_run_ms = j.at("profiled_run_ms").get<double>();
  if (j.contains("phases")) j.at("phases").get_to(r.phases);
  if (j.contains("weights_bytes")) r.weights_bytes = checked_integer<uint64_t>(j.at("weights_bytes"), "weights_bytes");
  if (j.contains("activations_bytes")) r.activations_bytes = checked_integer<uint64_t>(j.at("activations_bytes"), "activations_bytes");
  if (j.contains("repetitions")) {
    j.at("repetitions").get_to(r.repetitions);
    // Present means known: an empty list would not write back as it was read.
    std::string why = r.repetitions.empty() ? "an empty list" : partition_error(r.repetitions, r.latencies_ms.size());
    if (!why.empty()) throw UserError("run " + r.label() + ": repetitions do not partition latencies_ms: " + why);
  }
  if (j.contains("repetition_page_faults")) {
    j.at("repetition_page_faults").get_to(r.repetition_page_faults);
    if (r.repetition_page_faults.empty() || r.repetition_page_faults.size() != r.repetitions.size())
      throw UserError("run " + r.label() + ": repetition_page_faults needs one count per repetition (" +
                      std::to_string(r.repetitions.size()) + "), got " + std::to_string(r.repetition_page_faults.size()));
  }
  if (j.contains("page_faults_per_run")) r.page_faults_per_run = j.at("page_faults_per_run").get<double>();
  if (j.contains("live_from")) {
    r.live_from = checked_integer<int64_t>(j.at("live_from"), "live_from");
    if (*r.live_from < 1 || *r.live_from >= static_cast<int64_t>(r.repetitions.size()))
      throw UserError("run " + r.label() + ": live_from " + std::to_string(*r.live_from) +
                      " is not a repetition after the first (it has " + std::to_string(r.repetitions.size()) + ")");
  }
  if (j.contains("settings")) {
    j.at("settings").get_to(r.settings);
    if (r.settings.empty()) throw UserError("run " + r.label() + ": settings is an empty list (leave it out)");
  }
  if (j.contains("threads_observed")) r.threads_observed = j.at("threads_observed").get<ThreadsObserved>();
  if (j.contains("dispatch")) r.dispatch = j.at("dispatch").get<DispatchBreakdown>();
  if (j.contains("memory")) {
    r.memory = j.at("memory").get<RunMemory>();
    check_run_memory(*r.memory, r.layers.size(), r.label());
  }
  if (j.contains("int8_check")) r.int8_check = j.at("int8_check").get<Int8Check>();
  if (j.contains("reference")) {
    r.reference = j.at("reference").get<ReferenceTiming>();
    const ReferenceTiming& ref = *r.reference;
    std::string why = ref.repetitions.empty() ? "an empty list" : partition_error(ref.repetitions, ref.latencies_ms.size());
    if (!why.empty()) throw UserError("run " + r.label() + ": reference.repetitions do not partition its latencies_ms: " + why);
  }
}
ROOFLENS_JSON_FIELDS(Evidence, name, value, unit)

void to_json(json& j, const Finding& f) {
  j = json{{"rule", f.rule}, {"severity", f.severity}, {"run", f.run}, {"title", f.title}, {"layers", f.layers},
           {"onnx_nodes", f.onnx_nodes}, {"evidence", f.evidence}, {"mitigation", f.mitigation},
           {"read_more", f.read_more}};
}
void from_json(const json& j, Finding& f) {
  j.at("rule").get_to(f.rule);
  f.severity = checked_enum<Severity>(j.at("severity"), "severity", {"info", "warning", "error"});
  j.at("run").get_to(f.run);
  j.at("title").get_to(f.title);
  j.at("layers").get_to(f.layers);
  j.at("onnx_nodes").get_to(f.onnx_nodes);
  j.at("evidence").get_to(f.evidence);
  j.at("mitigation").get_to(f.mitigation);
  j.at("read_more").get_to(f.read_more);
}

// ---- whatif ----
ROOFLENS_JSON_FIELDS(LayerProjection, name, time_ms, flops, bytes, intensity, gflops, bound, roof, attainable,
                    bound_changed, note)
namespace {
struct RunProjectionCore : RunProjection {};
}  // namespace
ROOFLENS_JSON_FIELDS(RunProjectionCore, run, measured_ms, projected_ms, layers_measured_ms, layers_projected_ms, gap_ms,
                    layers)
// Added with memory: written when the run had a memory prediction, so projections written before round-trip unchanged.
void to_json(json& j, const RunProjection& p) {
  to_json(j, static_cast<const RunProjectionCore&>(p));
  if (p.memory) j["memory"] = *p.memory;
}
void from_json(const json& j, RunProjection& p) {
  from_json(j, static_cast<RunProjectionCore&>(p));
  if (j.contains("memory")) p.memory = j.at("memory").get<MemoryProjection>();
}

void to_json(json& j, const Projection& p) {
  j = json{{"modes", p.modes}, {"target", p.target}, {"assumptions", p.assumptions}};
  if (p.hardware) j["hardware"] = *p.hardware;
  j["runs"] = p.runs;
}
void from_json(const json& j, Projection& p) {
  j.at("modes").get_to(p.modes);
  j.at("target").get_to(p.target);
  j.at("assumptions").get_to(p.assumptions);
  if (j.contains("hardware")) p.hardware = j.at("hardware").get<HardwareInfo>();
  j.at("runs").get_to(p.runs);
}


void to_json(json& j, const Failure& f) {
  j = json::object();
  key_to_json(j, f);
  j.update(json{{"stage", f.stage}, {"kind", f.kind}, {"message", f.message}, {"stderr_tail", f.stderr_tail}});
}
void from_json(const json& j, Failure& f) {
  key_from_json(j, f);
  j.at("stage").get_to(f.stage);
  j.at("kind").get_to(f.kind);
  j.at("message").get_to(f.message);
  j.at("stderr_tail").get_to(f.stderr_tail);
}

void to_json(json& j, const BackendInfo& b) {
  j = json{{"label", b.label}, {"name", b.name}, {"version", b.version}, {"runtime", b.runtime}, {"options", b.options}};
  if (!b.roofs_engine.empty()) j["roofs_engine"] = b.roofs_engine;
}
void from_json(const json& j, BackendInfo& b) {
  j.at("name").get_to(b.name);
  j.at("version").get_to(b.version);
  j.at("runtime").get_to(b.runtime);
  j.at("options").get_to(b.options);
  b.label = j.value("label", b.name);  // /1 reports: one backend, named by its name
  b.roofs_engine = j.value("roofs_engine", "");
}

std::string report_to_json(const Report& r, int indent) {
  json j{{"schema", r.schema},
         {"tool", r.tool},
         {"model", r.model}};
  if (r.hardware) j["hardware"] = *r.hardware;  // only when measured: analyze output stays as it was
  if (r.is_profile()) {  // a profile report: the measured part
    j["backends"] = r.backends;
    j["partial"] = r.partial;
    j["runs"] = r.runs;
    j["failures"] = r.failures;
    j["warnings"] = r.warnings;
  }
  if (r.findings) j["findings"] = *r.findings;
  if (r.whatif) j["whatif"] = *r.whatif;
  if (r.generation) j["generation"] = *r.generation;  // `rooflens generate` reports only
  if (r.capacity) j["capacity"] = *r.capacity;        // `rooflens capacity` reports only
  if (r.serving) j["serving"] = *r.serving;           // `rooflens capacity` on a decoder only
  if (r.serving_search) j["serving_search"] = *r.serving_search;
  if (r.serving_roofline) j["serving_roofline"] = *r.serving_roofline;
  return j.dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

Report report_from_json(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw UserError("not a rooflens report: invalid JSON");
  Report r;
  try {
    j.at("schema").get_to(r.schema);
    if (r.schema != kReportSchema && r.schema != kReportSchemaV1)
      throw UserError("unsupported report schema '" + r.schema + "' (this rooflens reads " + kReportSchema + " and " +
                      kReportSchemaV1 + ")");
    r.schema = kReportSchema;  // read as, and written back as, the current schema
    j.at("tool").get_to(r.tool);
    j.at("model").get_to(r.model);
    if (j.contains("hardware")) r.hardware = j.at("hardware").get<HardwareInfo>();
    if (j.contains("backend")) r.backends = {j.at("backend").get<BackendInfo>()};  // rooflens.report/1
    if (j.contains("backends")) j.at("backends").get_to(r.backends);
    if (r.is_profile()) {
      j.at("partial").get_to(r.partial);
      j.at("runs").get_to(r.runs);
      j.at("failures").get_to(r.failures);
      j.at("warnings").get_to(r.warnings);
    }
    if (j.contains("findings")) r.findings = j.at("findings").get<std::vector<Finding>>();
    if (j.contains("whatif")) r.whatif = j.at("whatif").get<Projection>();
    if (j.contains("generation")) r.generation = j.at("generation").get<Generation>();
    if (j.contains("capacity")) r.capacity = j.at("capacity").get<CapacityResult>();
    if (j.contains("serving")) r.serving = j.at("serving").get<ServingResult>();
    if (j.contains("serving_search")) r.serving_search = j.at("serving_search").get<ServingSearch>();
    if (j.contains("serving_roofline")) r.serving_roofline = j.at("serving_roofline").get<ServingRoofline>();
  } catch (const json::exception& e) {
    throw UserError(std::string("malformed rooflens report: ") + e.what());
  }
  return r;
}

std::string hardware_to_json(const HardwareInfo& h, int indent) {
  return json(h).dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

HardwareInfo hardware_from_json(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw UserError("not a rooflens hardware description: invalid JSON");
  try {
    return (j.contains("hardware") ? j.at("hardware") : j).get<HardwareInfo>();
  } catch (const json::exception& e) {
    throw UserError(std::string("malformed hardware description: ") + e.what());
  }
}

}  // namespace rooflens
