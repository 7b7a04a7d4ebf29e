// JSON form of the Report. Field order is fixed (ordered_json) so write -> read -> write is byte-identical.
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/report.h"

namespace rooflens {

using json = nlohmann::ordered_json;

void to_json(json& j, const TensorSummary& t) {
  j = json{{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}, {"dim_names", t.dim_names}};
}
void from_json(const json& j, TensorSummary& t) {
  j.at("name").get_to(t.name);
  j.at("dtype").get_to(t.dtype);
  j.at("shape").get_to(t.shape);
  j.at("dim_names").get_to(t.dim_names);
}

void to_json(json& j, const NodeAnalysis& n) {
  j = json{{"index", n.index}, {"name", n.name}, {"op", n.op}, {"domain", n.domain}, {"graph", n.graph},
           {"inputs", n.inputs}, {"outputs", n.outputs}, {"input_shapes", n.input_shapes},
           {"output_shapes", n.output_shapes}, {"input_dtypes", n.input_dtypes}, {"output_dtypes", n.output_dtypes},
           {"flops", n.flops}, {"macs", n.macs}, {"params", n.params}, {"bytes_read", n.bytes_read},
           {"bytes_written", n.bytes_written}, {"intensity", n.intensity}, {"cost_known", n.cost_known},
           {"shapes_resolved", n.shapes_resolved}, {"note", n.note}};
}
void from_json(const json& j, NodeAnalysis& n) {
  j.at("index").get_to(n.index);
  j.at("name").get_to(n.name);
  j.at("op").get_to(n.op);
  j.at("domain").get_to(n.domain);
  j.at("graph").get_to(n.graph);
  j.at("inputs").get_to(n.inputs);
  j.at("outputs").get_to(n.outputs);
  j.at("input_shapes").get_to(n.input_shapes);
  j.at("output_shapes").get_to(n.output_shapes);
  j.at("input_dtypes").get_to(n.input_dtypes);
  j.at("output_dtypes").get_to(n.output_dtypes);
  j.at("flops").get_to(n.flops);
  j.at("macs").get_to(n.macs);
  j.at("params").get_to(n.params);
  j.at("bytes_read").get_to(n.bytes_read);
  j.at("bytes_written").get_to(n.bytes_written);
  j.at("intensity").get_to(n.intensity);
  j.at("cost_known").get_to(n.cost_known);
  j.at("shapes_resolved").get_to(n.shapes_resolved);
  j.at("note").get_to(n.note);
}

void to_json(json& j, const OpTypeSummary& s) {
  j = json{{"op", s.op}, {"domain", s.domain}, {"count", s.count}, {"flops", s.flops}, {"macs", s.macs},
           {"params", s.params}, {"bytes_read", s.bytes_read}, {"bytes_written", s.bytes_written},
           {"unknown", s.unknown}};
}
void from_json(const json& j, OpTypeSummary& s) {
  j.at("op").get_to(s.op);
  j.at("domain").get_to(s.domain);
  j.at("count").get_to(s.count);
  j.at("flops").get_to(s.flops);
  j.at("macs").get_to(s.macs);
  j.at("params").get_to(s.params);
  j.at("bytes_read").get_to(s.bytes_read);
  j.at("bytes_written").get_to(s.bytes_written);
  j.at("unknown").get_to(s.unknown);
}

void to_json(json& j, const Totals& t) {
  j = json{{"flops", t.flops}, {"macs", t.macs}, {"params", t.params}, {"bytes_read", t.bytes_read},
           {"bytes_written", t.bytes_written}, {"nodes", t.nodes}, {"unknown_cost_nodes", t.unknown_cost_nodes},
           {"unresolved_nodes", t.unresolved_nodes}, {"intensity", t.intensity}};
}
void from_json(const json& j, Totals& t) {
  j.at("flops").get_to(t.flops);
  j.at("macs").get_to(t.macs);
  j.at("params").get_to(t.params);
  j.at("bytes_read").get_to(t.bytes_read);
  j.at("bytes_written").get_to(t.bytes_written);
  j.at("nodes").get_to(t.nodes);
  j.at("unknown_cost_nodes").get_to(t.unknown_cost_nodes);
  j.at("unresolved_nodes").get_to(t.unresolved_nodes);
  j.at("intensity").get_to(t.intensity);
}

void to_json(json& j, const Analysis& a) {
  j = json{{"totals", a.totals}, {"op_types", a.op_types}, {"unknown_ops", a.unknown_ops},
           {"notes", a.notes}, {"nodes", a.nodes}};
}
void from_json(const json& j, Analysis& a) {
  j.at("totals").get_to(a.totals);
  j.at("op_types").get_to(a.op_types);
  j.at("unknown_ops").get_to(a.unknown_ops);
  j.at("notes").get_to(a.notes);
  j.at("nodes").get_to(a.nodes);
}

void to_json(json& j, const ModelInfo& m) {
  j = json{{"path", m.path}, {"name", m.name}, {"file_bytes", m.file_bytes}, {"ir_version", m.ir_version},
           {"producer_name", m.producer_name}, {"producer_version", m.producer_version}, {"opsets", m.opsets},
           {"inputs", m.inputs}, {"outputs", m.outputs}, {"initializers", m.initializers},
           {"weight_bytes", m.weight_bytes}, {"analysis", m.analysis}};
}
void from_json(const json& j, ModelInfo& m) {
  j.at("path").get_to(m.path);
  j.at("name").get_to(m.name);
  j.at("file_bytes").get_to(m.file_bytes);
  j.at("ir_version").get_to(m.ir_version);
  j.at("producer_name").get_to(m.producer_name);
  j.at("producer_version").get_to(m.producer_version);
  j.at("opsets").get_to(m.opsets);
  j.at("inputs").get_to(m.inputs);
  j.at("outputs").get_to(m.outputs);
  j.at("initializers").get_to(m.initializers);
  j.at("weight_bytes").get_to(m.weight_bytes);
  j.at("analysis").get_to(m.analysis);
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

void to_json(json& j, const ComputeRoof& c) {
  j = json{{"name", c.name}, {"isa", c.isa}, {"dtype", c.dtype}, {"threads", c.threads}, {"gflops", c.gflops}};
}
void from_json(const json& j, ComputeRoof& c) {
  j.at("name").get_to(c.name);
  j.at("isa").get_to(c.isa);
  j.at("dtype").get_to(c.dtype);
  j.at("threads").get_to(c.threads);
  j.at("gflops").get_to(c.gflops);
}

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

void to_json(json& j, const SweepPoint& p) {
  j = json{{"kernel", p.kernel}, {"threads", p.threads}, {"working_set_bytes", p.working_set_bytes},
           {"gbps", p.gbps}};
}
void from_json(const json& j, SweepPoint& p) {
  j.at("kernel").get_to(p.kernel);
  j.at("threads").get_to(p.threads);
  j.at("working_set_bytes").get_to(p.working_set_bytes);
  j.at("gbps").get_to(p.gbps);
}

void to_json(json& j, const HwError& e) { j = json{{"benchmark", e.benchmark}, {"message", e.message}}; }
void from_json(const json& j, HwError& e) {
  j.at("benchmark").get_to(e.benchmark);
  j.at("message").get_to(e.message);
}

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

std::string report_to_json(const Report& r, int indent) {
  json j{{"schema", r.schema},
         {"tool", {{"name", r.tool.name}, {"version", r.tool.version}, {"command", r.tool.command}}},
         {"model", r.model}};
  if (r.hardware) j["hardware"] = *r.hardware;  // only when measured: analyze output stays as it was
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
    const auto& tool = j.at("tool");
    tool.at("name").get_to(r.tool.name);
    tool.at("version").get_to(r.tool.version);
    tool.at("command").get_to(r.tool.command);
    j.at("model").get_to(r.model);
    if (j.contains("hardware")) r.hardware = j.at("hardware").get<HardwareInfo>();
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
