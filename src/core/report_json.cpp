// JSON form of the Report. Field order is fixed (ordered_json) so write -> read -> write is byte-identical.
#include "core/json_fields.h"

#include "core/errors.h"

namespace rooflens {

ROOFLENS_JSON_FIELDS(ToolInfo, name, version, command)

ROOFLENS_JSON_FIELDS(TensorSummary, name, dtype, shape, dim_names)

ROOFLENS_JSON_FIELDS(NodeAnalysis, index, name, op, domain, graph, inputs, outputs, input_shapes, output_shapes, input_dtypes,
                    output_dtypes, flops, macs, params, bytes_read, bytes_written, intensity, cost_known,
                    shapes_resolved, note)

ROOFLENS_JSON_FIELDS(OpTypeSummary, op, domain, count, flops, macs, params, bytes_read, bytes_written, unknown)

ROOFLENS_JSON_FIELDS(Totals, flops, macs, params, bytes_read, bytes_written, nodes, unknown_cost_nodes, unresolved_nodes, intensity)

ROOFLENS_JSON_FIELDS(Analysis, totals, op_types, unknown_ops, notes, nodes)

ROOFLENS_JSON_FIELDS(ModelInfo, path, name, file_bytes, ir_version, producer_name, producer_version, opsets, inputs, outputs,
                    initializers, weight_bytes, analysis)


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
  c.instances = j.value("instances", int64_t{0});
  c.cores_sharing = j.value("cores_sharing", int64_t{0});
}

void to_json(json& j, const MachineDesc& m) {
  j = json{{"vendor", m.vendor}, {"model", m.model}, {"sockets", m.sockets}, {"cores", m.cores},
           {"threads", m.threads}, {"numa_nodes", m.numa_nodes}, {"memory_bytes", m.memory_bytes},
           {"mhz", m.mhz}, {"os", m.os}, {"kernel", m.kernel}, {"isa", m.isa}, {"caches", m.caches}};
}
void from_json(const json& j, MachineDesc& m) {
  m.vendor = j.value("vendor", std::string());
  m.model = j.value("model", std::string());
  m.sockets = j.value("sockets", int64_t{0});
  m.cores = j.value("cores", int64_t{0});
  m.threads = j.value("threads", int64_t{0});
  m.numa_nodes = j.value("numa_nodes", int64_t{0});
  m.memory_bytes = j.value("memory_bytes", uint64_t{0});
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
  m.working_set_bytes = j.value("working_set_bytes", uint64_t{0});
}

ROOFLENS_JSON_FIELDS(SweepPoint, kernel, threads, working_set_bytes, gbps)

ROOFLENS_JSON_FIELDS(HwError, benchmark, message)

void to_json(json& j, const HardwareInfo& h) {
  j = json{{"source", h.source}, {"cache_key", h.cache_key}, {"measured_at", h.measured_at}, {"quick", h.quick},
           {"machine", h.machine}, {"compute", h.compute}, {"memory", h.memory}, {"sweep", h.sweep},
           {"notes", h.notes}, {"errors", h.errors}};
}
void from_json(const json& j, HardwareInfo& h) {
  j.at("source").get_to(h.source);
  if (h.source != "measured" && h.source != "datasheet")
    throw UserError("hardware.source must be \"measured\" or \"datasheet\", not \"" + h.source + "\"");
  h.cache_key = j.value("cache_key", std::string());
  h.measured_at = j.value("measured_at", std::string());
  h.quick = j.value("quick", false);
  if (j.contains("machine")) j.at("machine").get_to(h.machine);
  j.at("compute").get_to(h.compute);
  j.at("memory").get_to(h.memory);
  if (j.contains("sweep")) j.at("sweep").get_to(h.sweep);
  if (j.contains("notes")) j.at("notes").get_to(h.notes);
  if (j.contains("errors")) j.at("errors").get_to(h.errors);
}

// ---- profile ----
ROOFLENS_JSON_FIELDS(LatencyStats, n, min, max, mean, median, p90, p95, p99, std, cv)
ROOFLENS_JSON_FIELDS(Layer, name, op, provider, onnx_nodes, alias, time_ms, share, flops, macs, bytes, cost_known,
                    intensity, gflops, gbps, bound, efficiency, roof, input_shapes, output_shapes, start_ms)
ROOFLENS_JSON_FIELDS(NodeFate, name, fate)
// ProfileRun: the fields every report has, then the ones later versions added (written only when set, read
// when present), so older reports still load and round trips stay byte-identical.
#define ROOFLENS_PROFILE_RUN_FIELDS                                                                          \
  batch, dims, threads, latency_ms, throughput_per_s, wall_s, stop_reason, load_ms, profiled_latency_ms,      \
      profiling_overhead, coverage, peak_rss_bytes, flops, macs, gflops, layers, unowned, unmapped_kernels,   \
      warnings, latencies_ms
void to_json(json& nlohmann_json_j, const ProfileRun& nlohmann_json_t) {
  NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, ROOFLENS_PROFILE_RUN_FIELDS))
  if (!nlohmann_json_t.layers_error.empty()) nlohmann_json_j["layers_error"] = nlohmann_json_t.layers_error;
}
void from_json(const json& nlohmann_json_j, ProfileRun& nlohmann_json_t) {
  NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM, ROOFLENS_PROFILE_RUN_FIELDS))
  nlohmann_json_t.layers_error = nlohmann_json_j.value("layers_error", std::string());
}
#undef ROOFLENS_PROFILE_RUN_FIELDS
ROOFLENS_JSON_FIELDS(Failure, batch, dims, threads, stage, kind, message, stderr_tail)
ROOFLENS_JSON_FIELDS(BackendInfo, name, version, runtime, options)

std::string report_to_json(const Report& r, int indent) {
  json j{{"schema", r.schema},
         {"tool", r.tool},
         {"model", r.model}};
  if (r.hardware) j["hardware"] = *r.hardware;  // only when measured: analyze output stays as it was
  if (r.backend) {  // a profile report: the measured part
    j["backend"] = *r.backend;
    j["partial"] = r.partial;
    j["runs"] = r.runs;
    j["failures"] = r.failures;
    j["warnings"] = r.warnings;
  }
  return j.dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

Report report_from_json(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw UserError("not a rooflens report: invalid JSON");
  Report r;
  try {
    j.at("schema").get_to(r.schema);
    if (r.schema != kReportSchema)
      throw UserError("unsupported report schema '" + r.schema + "' (this rooflens reads " + kReportSchema + ")");
    j.at("tool").get_to(r.tool);
    j.at("model").get_to(r.model);
    if (j.contains("hardware")) r.hardware = j.at("hardware").get<HardwareInfo>();
    if (j.contains("backend")) {
      r.backend = j.at("backend").get<BackendInfo>();
      j.at("partial").get_to(r.partial);
      j.at("runs").get_to(r.runs);
      j.at("failures").get_to(r.failures);
      j.at("warnings").get_to(r.warnings);
    }
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
