// JSON form of BenchResults (results.json). Field order is fixed so write -> read -> write is byte-identical.
#include "core/bench_results.h"

#include "core/errors.h"
#include "core/json_fields.h"
#include "core/repetitions.h"

namespace rooflens {

namespace {
// Fields added after rooflens.bench/1 first shipped are read when present, so older results.json files still load.
template <class T>
void get_optional(const json& j, const char* key, T& into) {
  if (j.contains(key)) j.at(key).get_to(into);
}
}  // namespace

void to_json(json& j, const Mismatch& m) {
  j = json{{"output", m.output}, {"index", m.index}, {"expected", m.expected}, {"got", m.got}, {"data_set", m.data_set}};
}

void from_json(const json& j, Mismatch& m) {
  j.at("output").get_to(m.output);
  j.at("index").get_to(m.index);
  j.at("expected").get_to(m.expected);
  j.at("got").get_to(m.got);
  get_optional(j, "data_set", m.data_set);
}

void to_json(json& j, const OutputCheck& c) {
  j = json{{"name", c.name},         {"dtype", c.dtype},
           {"shape", c.shape},       {"elements", c.elements},
           {"mismatched", c.mismatched}, {"max_abs_error", c.max_abs_error},
           {"max_rel_error", c.max_rel_error}, {"passed", c.passed},
           {"note", c.note},         {"data_set", c.data_set},
           {"failure", c.failure}};
}

void from_json(const json& j, OutputCheck& c) {
  j.at("name").get_to(c.name);
  j.at("dtype").get_to(c.dtype);
  j.at("shape").get_to(c.shape);
  j.at("elements").get_to(c.elements);
  j.at("mismatched").get_to(c.mismatched);
  j.at("max_abs_error").get_to(c.max_abs_error);
  j.at("max_rel_error").get_to(c.max_rel_error);
  j.at("passed").get_to(c.passed);
  j.at("note").get_to(c.note);
  get_optional(j, "data_set", c.data_set);
  get_optional(j, "failure", c.failure);
}

void to_json(json& j, const BenchOptionsUsed& o) {
  j = json{{"mode", o.mode},
           {"rtol", o.rtol},
           {"atol", o.atol},
           {"percent_mismatch", o.percent_mismatch},
           {"timeout_s", o.timeout_s},
           {"sources", o.sources},
           {"filter", o.filter},
           {"warmup_iterations", o.warmup_iterations},
           {"warmup_ms", o.warmup_ms},
           {"iterations", o.iterations},
           {"duration_s", o.duration_s},
           {"profile_iterations", o.profile_iterations},
           {"max_iterations", o.max_iterations},
           {"repeat", o.repeat}};
  if (!o.shard.empty()) j["shard"] = o.shard;  // written only when set: results of unsharded runs stay as they were
}

void from_json(const json& j, BenchOptionsUsed& o) {
  j.at("mode").get_to(o.mode);
  j.at("rtol").get_to(o.rtol);
  j.at("atol").get_to(o.atol);
  j.at("percent_mismatch").get_to(o.percent_mismatch);
  j.at("timeout_s").get_to(o.timeout_s);
  j.at("sources").get_to(o.sources);
  j.at("filter").get_to(o.filter);
  get_optional(j, "warmup_iterations", o.warmup_iterations);
  get_optional(j, "warmup_ms", o.warmup_ms);
  get_optional(j, "iterations", o.iterations);
  get_optional(j, "duration_s", o.duration_s);
  get_optional(j, "profile_iterations", o.profile_iterations);
  get_optional(j, "max_iterations", o.max_iterations);
  get_optional(j, "repeat", o.repeat);
  get_optional(j, "shard", o.shard);
}

ROOFLENS_JSON_FIELDS(Validation, reference, data_sets, outputs, first_mismatches)
ROOFLENS_JSON_FIELDS(ProviderShare, provider, nodes, time_ms, time_share)
ROOFLENS_JSON_FIELDS(BenchMetrics, model_nodes, kernels, fused_ratio, providers)
ROOFLENS_JSON_FIELDS(BenchConfig, label, backend)

void to_json(json& j, const BenchEntry& e) {
  j = json{{"model", e.model},
           {"model_path", e.model_path},
           {"config", e.config},
           {"status", e.status},
           {"stage", e.stage},
           {"error_type", e.error_type},
           {"message", e.message},
           {"stderr_tail", e.stderr_tail},
           {"load_ms", e.load_ms},
           {"wall_s", e.wall_s},
           {"latency_ms", e.latency_ms},
           {"throughput_per_s", e.throughput_per_s},
           {"peak_rss_bytes", e.peak_rss_bytes}};
  // Optional parts are written only when present, so a validate-only run has no empty benchmark fields.
  if (e.validation) j["validation"] = *e.validation;
  if (e.metrics) j["metrics"] = *e.metrics;
  if (!e.repetitions.empty()) j["repetitions"] = e.repetitions;  // timed entries (absent before --repeat existed)
  j["latencies_ms"] = e.latencies_ms;
}

void from_json(const json& j, BenchEntry& e) {
  j.at("model").get_to(e.model);
  j.at("model_path").get_to(e.model_path);
  j.at("config").get_to(e.config);
  j.at("status").get_to(e.status);
  j.at("stage").get_to(e.stage);
  j.at("error_type").get_to(e.error_type);
  j.at("message").get_to(e.message);
  j.at("stderr_tail").get_to(e.stderr_tail);
  j.at("load_ms").get_to(e.load_ms);
  j.at("wall_s").get_to(e.wall_s);
  j.at("latency_ms").get_to(e.latency_ms);
  j.at("throughput_per_s").get_to(e.throughput_per_s);
  j.at("peak_rss_bytes").get_to(e.peak_rss_bytes);
  if (j.contains("validation")) e.validation = j.at("validation").get<Validation>();
  if (j.contains("metrics")) e.metrics = j.at("metrics").get<BenchMetrics>();
  j.at("latencies_ms").get_to(e.latencies_ms);
  if (j.contains("repetitions")) {
    j.at("repetitions").get_to(e.repetitions);
    std::string why = e.repetitions.empty() ? "an empty list" : partition_error(e.repetitions, e.latencies_ms.size());
    if (!why.empty())
      throw UserError("entry " + e.model + " [" + e.config + "]: repetitions do not partition latencies_ms: " + why);
  }
}

std::string bench_results_to_json(const BenchResults& r, int indent) {
  json j{{"schema", r.schema},
         {"tool", r.tool},
         {"options", r.options}};
  if (r.system) j["system"] = *r.system;
  j["configs"] = r.configs;
  j["partial"] = r.partial;
  j["entries"] = r.entries;
  return j.dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

BenchResults bench_results_from_json(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw UserError("not rooflens bench results: invalid JSON");
  BenchResults r;
  try {
    j.at("schema").get_to(r.schema);
    if (r.schema != kBenchSchema)
      throw UserError("unsupported bench results schema '" + r.schema + "' (this rooflens reads " + kBenchSchema + ")");
    j.at("tool").get_to(r.tool);
    j.at("options").get_to(r.options);
    if (j.contains("system")) r.system = j.at("system").get<MachineDesc>();
    j.at("configs").get_to(r.configs);
    j.at("partial").get_to(r.partial);
    j.at("entries").get_to(r.entries);
  } catch (const json::exception& e) {
    throw UserError(std::string("malformed rooflens bench results: ") + e.what());
  }
  return r;
}

std::string bench_entry_to_json_line(const BenchEntry& e, int64_t round) {
  json j = e;
  if (round > 1) j["round"] = round;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

BenchEntry bench_entry_from_json(const std::string& text, int64_t* round) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw UserError("not a rooflens bench entry: invalid JSON");
  try {
    int64_t r = optional_integer(j, "round", int64_t{1});
    if (r < 1) throw UserError("malformed rooflens bench entry: round " + std::to_string(r));
    if (round) *round = r;
    return j.get<BenchEntry>();
  } catch (const json::exception& e) {
    throw UserError(std::string("malformed rooflens bench entry: ") + e.what());
  }
}

}  // namespace rooflens
