// JSON form of Report::capacity ("capacity" in docs/report-schema.md). Field order is fixed (ordered_json), so a
// capacity report round-trips byte for byte like the rest of the report; optional parts are written only when set.
#include "core/capacity_json.h"

#include <algorithm>

#include "core/errors.h"

namespace rooflens {

NLOHMANN_JSON_SERIALIZE_ENUM(Scenario, {{Scenario::single_stream, "single-stream"},
                                        {Scenario::multi_stream, "multi-stream"},
                                        {Scenario::server, "server"},
                                        {Scenario::offline, "offline"}})

std::string to_string(Scenario s) { return json(s).get<std::string>(); }

std::optional<Scenario> scenario_from_string(const std::string& s) {
  for (Scenario x : {Scenario::single_stream, Scenario::multi_stream, Scenario::server, Scenario::offline})
    if (to_string(x) == s) return x;
  return std::nullopt;
}

namespace {
// An enum read back must be one of its names: nlohmann maps an unknown string to the first value silently.
Scenario scenario_of(const json& j) {
  auto s = scenario_from_string(j.get<std::string>());
  if (!s) throw UserError("capacity: unknown scenario '" + j.get<std::string>() + "'");
  return *s;
}
}  // namespace

ROOFLENS_JSON_FIELDS(QueryLatency, n, min, mean, p50, p90, p95, p99, p999, max)
ROOFLENS_JSON_FIELDS(EarlyStoppingCheck, percentile, confidence, queries, over_limit, needed, passed, estimate_ms)
ROOFLENS_JSON_FIELDS(IssueLag, p50_ms, p99_ms, max_ms)
ROOFLENS_JSON_FIELDS(CapacityConfig, instances, threads, concurrency, batch, max_batch, batch_timeout_ms, pin)
ROOFLENS_JSON_FIELDS(PredictedPoint, qps, p50_ms, p99_ms, valid)
ROOFLENS_JSON_FIELDS(Prediction, service_ms, overhead_ms, peak_qps, offline_samples_per_s, measured_peak_qps, error,
                     curve)
ROOFLENS_JSON_FIELDS(PeakSearch, qps, lower, upper, precision, converged)
ROOFLENS_JSON_FIELDS(CapacityExplanation, samples_per_s, flops_per_sample, bytes_per_sample, gflops, gbps,
                     cores_in_use, compute_roof_gflops, dram_roof_gbps, compute_roof, dram_roof, compute_share,
                     dram_share)
ROOFLENS_JSON_FIELDS(TimelineEntry, instance, start_ms, end_ms, batch)
ROOFLENS_JSON_FIELDS(SelfTest, engine_qps, max_qps, issue_lag_p99_ms, lag_at_qps, latency_p50_ms, latency_p99_ms)

// InstanceUse by hand: its runtime calls are stored under "requests", the key's name from before "message" and
// "call" had one meaning each (docs/report-schema.md); the file's bytes stay as they were.
void to_json(json& j, const InstanceUse& u) {
  j = json{{"index", u.index}, {"pid", u.pid}, {"cpus", u.cpus}, {"requests", u.calls}, {"queries", u.queries},
           {"failed", u.failed}, {"busy_share", u.busy_share}};
}

void from_json(const json& j, InstanceUse& u) {
  read_field(j, "index", u.index);
  read_field(j, "pid", u.pid);
  read_field(j, "cpus", u.cpus);
  read_field(j, "requests", u.calls);
  read_field(j, "queries", u.queries);
  read_field(j, "failed", u.failed);
  read_field(j, "busy_share", u.busy_share);
}

void to_json(json& j, const ScenarioResult& r) {
  j = json{{"scenario", r.scenario}, {"target_qps", r.target_qps}, {"verdict", r.valid ? "VALID" : "INVALID"},
           {"reasons", r.reasons}, {"recommendations", r.recommendations}, {"warnings", r.warnings},
           {"duration_s", r.duration_s}, {"queries", r.queries}, {"samples", r.samples},
           {"completed", r.completed}, {"failed", r.failed}, {"abandoned", r.abandoned}, {"over_slo", r.over_slo},
           {"scheduled_qps", r.scheduled_qps}, {"completed_qps", r.completed_qps},
           {"samples_per_s", r.samples_per_s}, {"latency_ms", r.latency_ms}, {"percentile_ms", r.percentile_ms},
           {"early_stopping", r.early_stopping},
           {"issue_lag", r.issue_lag}, {"instances", r.instances}, {"latencies_ms", r.latencies_ms},
           {"calls_per_request", r.calls_per_message}};  // the key predates "message" (docs/report-schema.md)
}

void from_json(const json& j, ScenarioResult& r) {
  r.scenario = scenario_of(j.at("scenario"));
  j.at("target_qps").get_to(r.target_qps);
  const std::string verdict = j.at("verdict").get<std::string>();
  if (verdict != "VALID" && verdict != "INVALID") throw UserError("capacity: verdict must be VALID or INVALID");
  r.valid = verdict == "VALID";
  j.at("reasons").get_to(r.reasons);
  j.at("recommendations").get_to(r.recommendations);
  j.at("warnings").get_to(r.warnings);
  j.at("duration_s").get_to(r.duration_s);
  j.at("queries").get_to(r.queries);
  j.at("samples").get_to(r.samples);
  j.at("completed").get_to(r.completed);
  j.at("failed").get_to(r.failed);
  j.at("abandoned").get_to(r.abandoned);
  j.at("over_slo").get_to(r.over_slo);
  j.at("scheduled_qps").get_to(r.scheduled_qps);
  j.at("completed_qps").get_to(r.completed_qps);
  j.at("samples_per_s").get_to(r.samples_per_s);
  j.at("latency_ms").get_to(r.latency_ms);
  j.at("percentile_ms").get_to(r.percentile_ms);
  j.at("early_stopping").get_to(r.early_stopping);
  j.at("issue_lag").get_to(r.issue_lag);
  j.at("instances").get_to(r.instances);
  j.at("latencies_ms").get_to(r.latencies_ms);
  r.calls_per_message = std::max<int64_t>(1, optional_integer<int64_t>(j, "calls_per_request", 1));  // older: 1
}

void to_json(json& j, const CapacityRun& r) {
  j = json{{"label", r.config.label()}, {"config", r.config}, {"failure", r.failure}, {"points", r.points}};
  if (r.peak) j["peak"] = *r.peak;
  if (r.prediction) j["prediction"] = *r.prediction;
  if (r.explanation) j["explanation"] = *r.explanation;
  j["timeline"] = r.timeline;
  j["warnings"] = r.warnings;
}

void from_json(const json& j, CapacityRun& r) {
  j.at("config").get_to(r.config);
  j.at("failure").get_to(r.failure);
  j.at("points").get_to(r.points);
  if (j.contains("peak")) r.peak = j.at("peak").get<PeakSearch>();
  if (j.contains("prediction")) r.prediction = j.at("prediction").get<Prediction>();
  if (j.contains("explanation")) r.explanation = j.at("explanation").get<CapacityExplanation>();
  j.at("timeline").get_to(r.timeline);
  j.at("warnings").get_to(r.warnings);
}

void to_json(json& j, const CapacitySettingsEcho& s) {
  j = json{{"scenario", s.scenario}, {"qps", s.qps}, {"slo_ms", s.slo_ms}, {"percentile", s.percentile},
           {"confidence", s.confidence}, {"samples_per_query", s.samples_per_query},
           {"min_duration_s", s.min_duration_s}, {"min_queries", s.min_queries}, {"sample_count", s.sample_count},
           {"seed", s.seed}, {"find_peak", s.find_peak}, {"search", s.search},
           {"mlperf_durations", s.mlperf_durations}};
}

void from_json(const json& j, CapacitySettingsEcho& s) {
  s.scenario = scenario_of(j.at("scenario"));
  j.at("qps").get_to(s.qps);
  j.at("slo_ms").get_to(s.slo_ms);
  j.at("percentile").get_to(s.percentile);
  j.at("confidence").get_to(s.confidence);
  j.at("samples_per_query").get_to(s.samples_per_query);
  j.at("min_duration_s").get_to(s.min_duration_s);
  j.at("min_queries").get_to(s.min_queries);
  j.at("sample_count").get_to(s.sample_count);
  j.at("seed").get_to(s.seed);
  j.at("find_peak").get_to(s.find_peak);
  j.at("search").get_to(s.search);
  j.at("mlperf_durations").get_to(s.mlperf_durations);
}

void to_json(json& j, const CapacityResult& c) {
  j = json{{"settings", c.settings}, {"partial", c.partial}, {"runs", c.runs}, {"best_offline", c.best_offline},
           {"best_server", c.best_server}};
  if (c.self_test) j["self_test"] = *c.self_test;
  j["warnings"] = c.warnings;
}

void from_json(const json& j, CapacityResult& c) {
  j.at("settings").get_to(c.settings);
  j.at("partial").get_to(c.partial);
  j.at("runs").get_to(c.runs);
  j.at("best_offline").get_to(c.best_offline);
  j.at("best_server").get_to(c.best_server);
  if (j.contains("self_test")) c.self_test = j.at("self_test").get<SelfTest>();
  j.at("warnings").get_to(c.warnings);
}

}  // namespace rooflens
