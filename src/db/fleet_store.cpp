#include "db/fleet_store.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/fleet_tags.h"
#include "db/rows.h"
#include "db/score_store.h"

namespace rooflens::db {
namespace {

// One stored row (a run or a score) that the rule may mark.
struct FleetCandidate {
  int64_t id = 0;          // the row's own id
  std::string mark;        // its superseded_by now
  std::string owner;       // the uuid a row it supersedes is marked with (its session's, or the score's own)
  std::string created_at;  // when its session (score) was made: the latest is kept
  int64_t order = 0;       // the session's (score's) id: the order stored, when two were made in one microsecond
};

bool fleet_later(const FleetCandidate& a, const FleetCandidate& b) {
  return std::tie(a.created_at, a.order, a.id) > std::tie(b.created_at, b.order, b.id);
}

// The marks that change in one group of rows stored for the same thing: every row but the latest marked with the
// latest's owner, the latest unmarked.
std::vector<std::pair<int64_t, std::string>> fleet_changed_marks(const std::vector<FleetCandidate>& group) {
  std::vector<std::pair<int64_t, std::string>> out;
  if (group.empty()) return out;
  const FleetCandidate& kept = *std::max_element(
      group.begin(), group.end(), [](const FleetCandidate& a, const FleetCandidate& b) { return fleet_later(b, a); });
  for (const auto& c : group) {
    const std::string want = c.id == kept.id ? "" : kept.owner;
    if (c.mark != want) out.emplace_back(c.id, want);
  }
  return out;
}

FleetCandidate fleet_candidate_of(const Row& row, size_t at, const char* table) {
  const std::string t(table);
  FleetCandidate c;
  c.id = parse_int(row[at], (t + ".id").c_str());
  c.mark = parse_text(row[at + 1], (t + ".superseded_by").c_str());
  c.owner = parse_text(row[at + 2], "uuid");
  c.created_at = parse_text(row[at + 3], "created_at");
  c.order = parse_int(row[at + 4], "id");
  return c;
}

}  // namespace

void lock_fleet(Connection& c, const std::string& fleet) { c.lock_name(std::string(kFleetTag) + "=" + fleet); }

void supersede_fleet_runs(Connection& c, const std::string& fleet, const std::string& task,
                          const std::vector<std::pair<std::string, std::string>>& keys) {
  const std::set<std::pair<std::string, std::string>> wanted(keys.begin(), keys.end());
  std::map<std::pair<std::string, std::string>, std::vector<FleetCandidate>> groups;
  // Only the same task's runs: in a sharded fleet a model belongs to one task anyway, and in a fleet whose tasks
  // each run every model (--fleet-whole) the other tasks' runs are other machines' results, not earlier attempts.
  for (const auto& row :
       c.query("SELECT r.model, r.config, r.id, r.superseded_by, s.uuid, s.created_at, s.id FROM runs r"
               " JOIN sessions s ON s.id = r.session_id WHERE EXISTS (SELECT 1 FROM tags t WHERE"
               " t.session_id = s.id AND t.key = ? AND t.value = ?) AND COALESCE((SELECT k.value FROM tags k WHERE"
               " k.session_id = s.id AND k.key = ?), '') = ?",
               {std::string(kFleetTag), fleet, std::string(kTaskTag), task})) {
    std::pair<std::string, std::string> key{parse_text(row[0], "runs.model"), parse_text(row[1], "runs.config")};
    if (wanted.count(key)) groups[key].push_back(fleet_candidate_of(row, 2, "runs"));
  }
  for (const auto& [key, group] : groups)
    for (const auto& [id, mark] : fleet_changed_marks(group))
      c.query("UPDATE runs SET superseded_by = ? WHERE id = ?", {mark, id});
}

void supersede_fleet_scores(Connection& c, const std::string& fleet, const ScoreKey& key) {
  std::vector<FleetCandidate> group;
  for (const auto& row : c.query("SELECT sc.id, sc.superseded_by, sc.uuid, sc.created_at, sc.id FROM scores sc WHERE"
                                 " sc.machine = ? AND sc.suite = ? AND sc.quick = ? AND sc.kind = ? AND EXISTS (SELECT"
                                 " 1 FROM score_tags t WHERE t.score_id = sc.id AND t.key = ? AND t.value = ?)",
                                 {key.machine, key.suite, int64_t{key.quick}, key.kind, std::string(kFleetTag), fleet}))
    group.push_back(fleet_candidate_of(row, 0, "scores"));
  for (const auto& [id, mark] : fleet_changed_marks(group))
    c.query("UPDATE scores SET superseded_by = ? WHERE id = ?", {mark, id});
}

FleetStored load_fleet(ResultStore& store, const std::string& fleet) {
  Connection& c = store.connection();
  FleetStored out;
  out.fleet = fleet;
  out.database = c.shown();
  std::map<std::string, std::string> cpu;
  for (const auto& m : store.machines()) cpu[m.id] = m.cpu;
  const std::vector<SqlValue> tag{std::string(kFleetTag), fleet};
  std::map<int64_t, std::map<std::string, std::string>> tags;
  for (const auto& row : c.query("SELECT t.session_id, t.key, t.value FROM tags t WHERE EXISTS (SELECT 1 FROM tags f"
                                 " WHERE f.session_id = t.session_id AND f.key = ? AND f.value = ?)",
                                 tag))
    tags[parse_int(row[0], "tags.session_id")][parse_text(row[1], "tags.key")] = parse_text(row[2], "tags.value");
  for (const auto& row :
       c.query("SELECT s.id, s.uuid, s.machine FROM sessions s WHERE EXISTS (SELECT 1 FROM tags t"
               " WHERE t.session_id = s.id AND t.key = ? AND t.value = ?) ORDER BY s.created_at, s.id",
               tag)) {
    FleetStoredSession s{parse_text(row[1], "sessions.uuid"), parse_text(row[2], "sessions.machine"), "", {}};
    s.cpu = cpu[s.machine];
    s.tags = std::move(tags[parse_int(row[0], "sessions.id")]);
    out.sessions.push_back(std::move(s));
  }
  HistoryQuery q;
  q.tags = {{kFleetTag, fleet}};
  q.with_superseded = true;
  for (auto& p : store.points(q)) {
    const std::string machine_cpu = cpu[p.machine];
    out.runs.push_back({std::move(p), machine_cpu});
  }
  ScoreQuery sq;
  sq.tags = {{kFleetTag, fleet}};
  sq.with_superseded = true;
  for (auto& s : load_scores(c, sq)) {
    const ScoreResult& r = s.result;
    out.scores.push_back({s.uuid, r.created_at, s.machine, r.machine.machine.model, std::move(s.tags), r.suite, r.kind,
                          r.quick, r.overall.score, r.overall.ci.low, r.overall.ci.high, s.superseded_by});
  }
  return out;
}

int64_t fleet_models_stored(ResultStore& store, const std::string& fleet) {
  auto rows = store.connection().query(
      "SELECT count(DISTINCT r.model) FROM runs r WHERE r.superseded_by = '' AND EXISTS (SELECT 1 FROM tags t WHERE"
      " t.session_id = r.session_id AND t.key = ? AND t.value = ?)",
      {std::string(kFleetTag), fleet});
  return rows.empty() || rows[0].empty() ? 0 : parse_int(rows[0][0], "count");
}

}  // namespace rooflens::db
