#include "history/fleet_merge.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/fleet_tags.h"

namespace rooflens {
namespace {

std::string fleet_tag_of(const std::map<std::string, std::string>& tags, const char* key) {
  auto it = tags.find(key);
  return it == tags.end() ? "" : it->second;
}

// Task tags are array indices: 2 before 10. Anything that is not a plain number sorts after, as text.
bool fleet_task_before(const std::string& a, const std::string& b) {
  auto number = [](const std::string& s) {
    return !s.empty() && s.size() < 19 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const bool na = number(a), nb = number(b);
  if (na != nb) return na;
  if (na) return std::stoll(a) < std::stoll(b);
  return a < b;
}

// One machine class while it is being filled: sets, then sorted into the FleetClass.
struct FleetClassBuilder {
  std::set<std::string> machines, nodes;
  FleetClass out;
};

FleetRunRow fleet_run_row(const FleetStoredRun& r, int64_t superseded) {
  const HistoryPoint& p = r.point;
  FleetRunRow row;
  row.model = p.model;
  row.backend = p.backend;
  row.options = p.options;
  row.config = p.config;
  row.status = p.status;
  row.error = p.error;
  row.median_ms = p.latency_ms.n > 0 ? p.latency_ms.median : 0;
  row.machine = p.machine;
  row.node = fleet_tag_of(p.tags, kNodeTag);
  row.task = fleet_tag_of(p.tags, kTaskTag);
  row.attempt = fleet_tag_of(p.tags, kAttemptTag);
  row.session = p.session;
  row.created_at = p.created_at;
  row.superseded = superseded;
  return row;
}

FleetScoreRow fleet_score_row(const FleetStoredScore& s, int64_t superseded) {
  return {s.uuid,
          s.created_at,
          s.machine,
          fleet_tag_of(s.tags, kNodeTag),
          fleet_tag_of(s.tags, kTaskTag),
          fleet_tag_of(s.tags, kAttemptTag),
          s.suite,
          s.kind,
          s.quick,
          s.overall,
          s.low,
          s.high,
          superseded};
}

void fleet_note_machine(FleetClassBuilder& c, const std::string& machine, const std::string& node) {
  c.machines.insert(machine);
  if (!node.empty()) c.nodes.insert(node);
}

// Kept runs by class, each with the count of the runs marked with its session (the rule marks every other run of
// its model × configuration so).
void fleet_add_runs(const FleetStored& stored, std::map<std::string, FleetClassBuilder>& classes, FleetSummary& s) {
  std::map<std::tuple<std::string, std::string, std::string>, int64_t> replaced;  // (kept session, model, config)
  for (const auto& r : stored.runs)
    if (!r.point.superseded_by.empty()) {
      ++replaced[{r.point.superseded_by, r.point.model, r.point.config}];
      ++s.superseded_runs;
    }
  std::set<std::string> models;
  for (const auto& r : stored.runs) {
    if (!r.point.superseded_by.empty()) continue;
    FleetRunRow row = fleet_run_row(r, replaced[{r.point.session, r.point.model, r.point.config}]);
    FleetClassBuilder& c = classes[r.cpu];
    fleet_note_machine(c, row.machine, row.node);
    models.insert(row.model);
    ++s.statuses[row.status];
    c.out.runs.push_back(std::move(row));
  }
  s.models = static_cast<int64_t>(models.size());
}

void fleet_add_scores(const FleetStored& stored, std::map<std::string, FleetClassBuilder>& classes, FleetSummary& s) {
  std::map<std::string, int64_t> replaced;  // by the kept score's uuid
  for (const auto& sc : stored.scores)
    if (!sc.superseded_by.empty()) {
      ++replaced[sc.superseded_by];
      ++s.superseded_scores;
    }
  for (const auto& sc : stored.scores) {
    if (!sc.superseded_by.empty()) continue;
    FleetScoreRow row = fleet_score_row(sc, replaced[sc.uuid]);
    FleetClassBuilder& c = classes[sc.cpu];
    fleet_note_machine(c, row.machine, row.node);
    c.out.scores.push_back(std::move(row));
    ++s.scores;
  }
}

std::vector<std::string> fleet_tasks_seen(const FleetStored& stored) {
  std::set<std::string> tasks;
  for (const auto& s : stored.sessions)
    if (auto t = fleet_tag_of(s.tags, kTaskTag); !t.empty()) tasks.insert(t);
  for (const auto& s : stored.scores)
    if (auto t = fleet_tag_of(s.tags, kTaskTag); !t.empty()) tasks.insert(t);
  std::vector<std::string> out(tasks.begin(), tasks.end());
  std::sort(out.begin(), out.end(), fleet_task_before);
  return out;
}

}  // namespace

FleetSummary merge_fleet(const FleetStored& stored) {
  FleetSummary s;
  s.fleet = stored.fleet;
  s.database = stored.database;
  std::map<std::string, FleetClassBuilder> classes;  // by CPU name: sorted
  fleet_add_runs(stored, classes, s);
  fleet_add_scores(stored, classes, s);
  for (auto& [cpu, c] : classes) {
    c.out.cpu = cpu;
    c.out.machines.assign(c.machines.begin(), c.machines.end());
    c.out.nodes.assign(c.nodes.begin(), c.nodes.end());
    std::sort(c.out.runs.begin(), c.out.runs.end(), [](const FleetRunRow& a, const FleetRunRow& b) {
      return std::tie(a.model, a.config, a.options) < std::tie(b.model, b.config, b.options);
    });
    std::sort(c.out.scores.begin(), c.out.scores.end(), [](const FleetScoreRow& a, const FleetScoreRow& b) {
      return std::tie(a.machine, a.node, a.suite, a.quick, a.kind) <
             std::tie(b.machine, b.node, b.suite, b.quick, b.kind);
    });
    s.runs += static_cast<int64_t>(c.out.runs.size());
    s.classes.push_back(std::move(c.out));
  }
  s.tasks = fleet_tasks_seen(stored);
  s.sessions = static_cast<int64_t>(stored.sessions.size());
  return s;
}

}  // namespace rooflens
