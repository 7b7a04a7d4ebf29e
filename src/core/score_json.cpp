// JSON form of a score result ("rooflens.score/1", docs/score.md). Field order is fixed (ordered_json), so a result
// round-trips byte for byte. The reader is the validation of results read from outside (`score --from`, the
// database): a malformed field is one UserError line naming it, never a crash or a silently wrong score.
#include <cmath>

#include "core/errors.h"
#include "core/json_fields.h"
#include "core/score.h"

namespace rooflens {

namespace {
constexpr std::pair<WorkloadStatus, const char*> kStatusNames[] = {{WorkloadStatus::valid, "valid"},
                                                                   {WorkloadStatus::invalid, "INVALID"},
                                                                   {WorkloadStatus::failed, "failed"},
                                                                   {WorkloadStatus::unsupported, "unsupported"}};
}  // namespace

std::string to_string(WorkloadStatus s) {
  for (const auto& [v, name] : kStatusNames)
    if (v == s) return name;
  return "failed";
}

std::optional<WorkloadStatus> workload_status_from_string(const std::string& s) {
  for (const auto& [v, name] : kStatusNames)
    if (name == s) return v;
  return std::nullopt;
}

ROOFLENS_JSON_FIELDS(ScoreInterval, low, high)
ROOFLENS_JSON_FIELDS(ScoreMachine, machine, cores_used, tool, runtime, roofs)
ROOFLENS_JSON_FIELDS(RoofBound, flops, bytes, compute_roof, compute_gflops, memory_roof, memory_gbps, bound, time_ms)
ROOFLENS_JSON_FIELDS(ScoreFigure, metric, category, unit, repetitions, value, time_ms, reference_time_ms, config,
                     drift, drift_beyond_ci, score, ci, roof, reference_roof_time_ms, roof_ratio, efficiency)
ROOFLENS_JSON_FIELDS(ScoreAggregate, name, score, ci, roof_ratio, efficiency, members, valid_members, incomplete,
                     explanation)

void to_json(json& j, const ScoreWorkload& w) {
  j = json{{"id", w.id},
           {"model", w.model},
           {"precision", w.precision},
           {"shape", w.shape},
           {"status", to_string(w.status)},
           {"reason", w.reason},
           {"max_abs_error", w.max_abs_error},
           {"max_rel_error", w.max_rel_error},
           {"tolerance", w.tolerance},
           {"figures", w.figures},
           {"seconds", w.seconds}};
}

void from_json(const json& j, ScoreWorkload& w) {
  j.at("id").get_to(w.id);
  j.at("model").get_to(w.model);
  j.at("precision").get_to(w.precision);
  j.at("shape").get_to(w.shape);
  const std::string status = j.at("status").get<std::string>();
  auto s = workload_status_from_string(status);
  if (!s) throw UserError("workload '" + w.id + "': status '" + status + "' is not valid, INVALID, failed or unsupported");
  w.status = *s;
  j.at("reason").get_to(w.reason);
  j.at("max_abs_error").get_to(w.max_abs_error);
  j.at("max_rel_error").get_to(w.max_rel_error);
  j.at("tolerance").get_to(w.tolerance);
  j.at("figures").get_to(w.figures);
  j.at("seconds").get_to(w.seconds);
  // The raw figures are what a score is recomputed from: each one a measured, positive, finite quantity.
  for (const auto& f : w.figures)
    for (double x : f.repetitions)
      if (!(std::isfinite(x) && x > 0))
        throw UserError("workload '" + w.id + "' figure '" + f.metric + "': repetition value " + std::to_string(x) +
                        " is not a positive number");
}

void to_json(json& j, const ScoreResult& r) {
  j = json{{"schema", r.schema},       {"suite", r.suite},
           {"quick", r.quick},         {"kind", r.kind},
           {"device", r.device},       {"created_at", r.created_at},
           {"machine", r.machine},     {"repetitions", r.repetitions},
           {"ci_method", r.ci_method}, {"harness", r.harness},
           {"workloads", r.workloads},
           {"categories", r.categories}, {"overall", r.overall},
           {"partial", r.partial},     {"seconds", r.seconds},
           {"warnings", r.warnings}};
}

void from_json(const json& j, ScoreResult& r) {
  j.at("suite").get_to(r.suite);
  j.at("quick").get_to(r.quick);
  j.at("kind").get_to(r.kind);
  if (r.kind != "measured" && r.kind != "projected")
    throw UserError("kind '" + r.kind + "' is neither measured nor projected");
  j.at("device").get_to(r.device);
  j.at("created_at").get_to(r.created_at);
  j.at("machine").get_to(r.machine);
  j.at("repetitions").get_to(r.repetitions);
  j.at("ci_method").get_to(r.ci_method);
  if (j.contains("harness")) j.at("harness").get_to(r.harness);  // results of suite v1 have none
  j.at("workloads").get_to(r.workloads);
  j.at("categories").get_to(r.categories);
  j.at("overall").get_to(r.overall);
  j.at("partial").get_to(r.partial);
  j.at("seconds").get_to(r.seconds);
  j.at("warnings").get_to(r.warnings);
}

std::string score_to_json(const ScoreResult& r, int indent) {
  return json(r).dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

ScoreResult score_from_json(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw UserError("not a rooflens score result: invalid JSON");
  ScoreResult r;
  try {
    const std::string schema = j.at("schema").get<std::string>();
    if (schema != kScoreSchema)
      throw UserError("unsupported score schema '" + schema + "' (this rooflens reads " + kScoreSchema + ")");
    j.get_to(r);
  } catch (const json::exception& e) {
    throw UserError(std::string("malformed rooflens score result: ") + e.what());
  }
  return r;
}

}  // namespace rooflens
