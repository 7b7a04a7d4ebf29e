// JSON form of Trends ("rooflens.trends/1"): `history --json` and the data the HTML trend page embeds.
#include "core/json_fields.h"
#include "core/trend.h"

namespace rooflens {

std::string config_label(const std::string& config, const std::string& options) {
  return options.empty() ? config : config + " [" + options + "]";
}

std::string series_label(const TrendSeries& s) { return s.model + " · " + config_label(s.config, s.options); }

namespace {

json machine_json(const MachineFingerprint& m) {
  return json{{"id", m.id}, {"cpu", m.cpu}, {"cores", m.cores}, {"threads", m.threads},
              {"memory_bytes", m.memory_bytes}, {"os", m.os}};
}

json point_json(const TrendPoint& p) {
  return json{{"session", p.session},         {"created_at", p.created_at},
              {"tags", p.tags},               {"model_hash", p.model_hash},
              {"status", p.status},           {"error", p.error},
              {"rooflens_version", p.rooflens_version}, {"runtime", p.runtime},
              {"center_ms", p.center_ms},     {"median_ms", p.median_ms},
              {"samples", p.samples},         {"run_medians", p.run_medians},
              {"model_changed", p.model_changed}, {"change_point", p.change_point},
              {"change", p.change},           {"change_p", p.change_p},
              {"reference", p.reference},     {"reference_hash", p.reference_hash},
              {"reference_ratio", p.reference_ratio}, {"peak_rss_bytes", p.peak_rss_bytes}};
}

json check_json(const TrendCheck& c) {
  return json{{"model", c.model},           {"config", c.config},         {"options", c.options},
              {"machine", c.machine},       {"session", c.session},       {"created_at", c.created_at},
              {"verdict", c.verdict},       {"baseline_runs", c.baseline_runs}, {"baseline_ms", c.baseline_ms},
              {"latest_ms", c.latest_ms},   {"change", c.change},         {"ci_low", c.ci_low},
              {"ci_high", c.ci_high},       {"p_value", c.p_value},       {"model_changed", c.model_changed},
              {"error", c.error},           {"reference", c.reference},   {"baseline_ratio", c.baseline_ratio},
              {"latest_ratio", c.latest_ratio}, {"memory_verdict", c.memory_verdict},
              {"baseline_peak_rss_bytes", c.baseline_peak_rss_bytes}, {"latest_peak_rss_bytes", c.latest_peak_rss_bytes},
              {"memory_change", c.memory_change}};
}

}  // namespace

std::string trends_to_json(const Trends& t, int indent) {
  json machines = json::array(), series = json::array(), checks = json::array();
  for (const auto& m : t.machines) machines.push_back(machine_json(m));
  for (const auto& s : t.series) {
    json points = json::array();
    for (const auto& p : s.points) points.push_back(point_json(p));
    series.push_back(json{{"model", s.model},     {"backend", s.backend}, {"options", s.options},
                          {"config", s.config},   {"machine", s.machine}, {"label", series_label(s)},
                          {"points", points}});
  }
  for (const auto& c : t.checks) checks.push_back(check_json(c));
  json j{{"schema", t.schema}, {"database", t.database}, {"machines", machines}, {"series", series}};
  if (t.check_options)
    j["check"] = json{{"last", t.check_options->last},   {"min_runs", t.check_options->min_runs},
                      {"alpha", t.check_options->alpha}, {"threshold", t.check_options->threshold},
                      {"memory_threshold", t.check_options->memory_threshold}, {"results", checks}};
  j["notes"] = t.notes;
  std::string out = j.dump(indent, ' ', false, json::error_handler_t::replace);
  return indent >= 0 ? out + "\n" : out;
}

}  // namespace rooflens
