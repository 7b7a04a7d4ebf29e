#include "reporters/fleet_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/text_table.h"
#include "core/trend.h"

namespace rooflens {
namespace {

using ojson = nlohmann::ordered_json;

std::string fleet_plural(int64_t n, const std::string& word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// The bench verdicts in their usual order, then any other status a database holds.
std::string fleet_statuses_text(const std::map<std::string, int64_t>& statuses) {
  std::string out;
  auto add = [&out](const std::string& status, int64_t n) {
    out += (out.empty() ? "" : ", ") + fmt::format("{} {}", n, status);
  };
  static const char* order[] = {"pass", "fail", "timeout", "crash", "skip"};
  for (const char* s : order)
    if (auto it = statuses.find(s); it != statuses.end()) add(s, it->second);
  for (const auto& [s, n] : statuses)
    if (std::find(std::begin(order), std::end(order), s) == std::end(order)) add(s, n);
  return out;
}

std::string fleet_joined(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : sep) + x;
  return out;
}

std::string fleet_ms(double v) { return v > 0 ? fmt::format("{:.3f}", v) : "-"; }
std::string fleet_or_dash(const std::string& s) { return s.empty() ? "-" : s; }

std::string fleet_class_heading(const FleetClass& c) {
  return fmt::format("{} · {}, {}{}\n", c.cpu.empty() ? "unknown CPU" : c.cpu,
                     fleet_plural(static_cast<int64_t>(c.machines.size()), "machine"),
                     fleet_plural(static_cast<int64_t>(c.nodes.size()), "node"),
                     c.nodes.empty() ? "" : " (" + fleet_joined(c.nodes, ", ") + ")");
}

std::string fleet_runs_table(const FleetClass& c) {
  TextTable t;
  t.columns = {{"model", false, 40}, {"config", false, 40}, {"status"},        {"median ms", true},
               {"task", true},       {"node", false, 24},   {"attempt", true}, {"replaced", true},
               {"machine"},          {"error", false, 80}};
  for (const auto& r : c.runs)
    t.rows.push_back({r.model, config_label(r.config, r.options), r.status, fleet_ms(r.median_ms),
                      fleet_or_dash(r.task), fleet_or_dash(r.node), fleet_or_dash(r.attempt),
                      std::to_string(r.superseded), r.machine.substr(0, 8), r.error});
  return t.render();
}

std::string fleet_scores_table(const FleetClass& c) {
  TextTable t;
  t.columns = {{"machine"}, {"node", false, 24}, {"task", true},         {"attempt", true}, {"suite"}, {"mode"},
               {"kind"},    {"overall", true},   {"95% interval", true}, {"replaced", true}};
  for (const auto& s : c.scores)
    t.rows.push_back({s.machine.substr(0, 8), fleet_or_dash(s.node), fleet_or_dash(s.task), fleet_or_dash(s.attempt),
                      s.suite, s.quick ? "quick" : "full", s.kind, fmt::format("{:.1f}", s.overall),
                      fmt::format("{:.1f}–{:.1f}", s.low, s.high), std::to_string(s.superseded)});
  return t.render();
}

ojson fleet_run_json(const FleetRunRow& r) {
  return {{"model", r.model},
          {"backend", r.backend},
          {"options", r.options},
          {"config", r.config},
          {"status", r.status},
          {"error", r.error},
          {"median_ms", r.median_ms},
          {"machine", r.machine},
          {"node", r.node},
          {"task", r.task},
          {"attempt", r.attempt},
          {"session", r.session},
          {"created_at", r.created_at},
          {"superseded", r.superseded}};
}

ojson fleet_score_json(const FleetScoreRow& s) {
  return {{"uuid", s.uuid},
          {"created_at", s.created_at},
          {"machine", s.machine},
          {"node", s.node},
          {"task", s.task},
          {"attempt", s.attempt},
          {"suite", s.suite},
          {"quick", s.quick},
          {"kind", s.kind},
          {"overall", s.overall},
          {"low", s.low},
          {"high", s.high},
          {"superseded", s.superseded}};
}

}  // namespace

std::string fleet_summary_line(const FleetSummary& f) {
  std::string line =
      fmt::format("fleet {} in {}: {} stored ({}{}{})", f.fleet, f.database, fleet_plural(f.models, "model"),
                  fleet_plural(f.runs, "run"), f.statuses.empty() ? "" : ": ", fleet_statuses_text(f.statuses));
  if (f.scores > 0) line += ", " + fleet_plural(f.scores, "score");
  line += ", " + fleet_plural(static_cast<int64_t>(f.tasks.size()), "task") + " seen" +
          (f.tasks.empty() ? "" : " (" + fleet_joined(f.tasks, " ") + ")");
  line += ", " + fleet_plural(f.sessions, "session");
  if (f.superseded_runs + f.superseded_scores > 0)
    line += "; superseded by a later attempt: " + fleet_plural(f.superseded_runs, "run") +
            (f.superseded_scores > 0 ? ", " + fleet_plural(f.superseded_scores, "score") : "");
  return line + "\n";
}

std::string fleet_text(const FleetSummary& f) {
  std::string out = fleet_summary_line(f);
  out +=
      "(median ms: the median of the kept run's samples; attempt: the attempt kept; replaced: the earlier attempts "
      "it superseded)\n";
  for (const auto& c : f.classes) {
    out += "\n" + fleet_class_heading(c);
    if (!c.runs.empty()) out += fleet_runs_table(c);
    if (!c.scores.empty()) out += (c.runs.empty() ? "" : "\n") + std::string("scores:\n") + fleet_scores_table(c);
  }
  return out;
}

std::string fleet_to_json(const FleetSummary& f, int indent) {
  ojson classes = ojson::array();
  for (const auto& c : f.classes) {
    ojson runs = ojson::array(), scores = ojson::array();
    for (const auto& r : c.runs) runs.push_back(fleet_run_json(r));
    for (const auto& s : c.scores) scores.push_back(fleet_score_json(s));
    classes.push_back(
        {{"cpu", c.cpu}, {"machines", c.machines}, {"nodes", c.nodes}, {"runs", runs}, {"scores", scores}});
  }
  ojson summary{{"models", f.models},
                {"runs", f.runs},
                {"statuses", f.statuses},
                {"scores", f.scores},
                {"tasks", f.tasks},
                {"sessions", f.sessions},
                {"superseded_runs", f.superseded_runs},
                {"superseded_scores", f.superseded_scores}};
  ojson j{
      {"schema", f.schema}, {"fleet", f.fleet}, {"database", f.database}, {"summary", summary}, {"classes", classes}};
  return j.dump(indent, ' ', false, ojson::error_handler_t::replace) + (indent >= 0 ? "\n" : "");
}

}  // namespace rooflens
