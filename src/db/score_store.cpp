#include "db/score_store.h"

#include <cmath>
#include <map>

#include "core/errors.h"
#include "core/fleet_tags.h"
#include "core/history.h"
#include "db/fleet_store.h"
#include "db/rows.h"
#include "db/url.h"

namespace rooflens::db {
namespace {

[[noreturn]] void disagree(const char* column, const std::string& uuid) {
  throw DbError(std::string("column ") + column + " of score " + uuid +
                " disagrees with its stored result (the database was edited or not written by this rooflens?)");
}

bool flag(const std::optional<std::string>& text, const char* column) {
  const int64_t v = parse_int(text, column);
  if (v != 0 && v != 1) throw DbError(std::string("column ") + column + ": not 0 or 1");
  return v == 1;
}

// Doubles go through each database's text form (SQLite prints 15 significant digits): equal to 1e-12 relative.
bool same(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)); }

void check_aggregate(const ScoreAggregate& a, const std::string& what) {
  auto bad = [&](const std::string& why) { throw UserError(what + ": " + a.name + ": " + why); };
  for (double x : {a.score, a.ci.low, a.ci.high, a.roof_ratio, a.efficiency})
    if (!std::isfinite(x) || x < 0) bad("a score, interval, roof ratio or efficiency is negative or not finite");
  if (a.ci.low > a.ci.high || (a.ci.high > 0 && (a.score < a.ci.low || a.score > a.ci.high)))
    bad("the 95% interval does not hold the score");
  if (a.members < 0 || a.valid_members < 0 || a.valid_members > a.members) bad("valid members exceed the members");
}

void insert_categories(Connection& c, int64_t score, const std::vector<ScoreAggregate>& categories) {
  int64_t seq = 0;
  for (const auto& a : categories)
    c.query("INSERT INTO score_categories (score_id, seq, name, score, low, high, roof_ratio, efficiency, members,"
            " valid_members, incomplete) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            {score, seq++, a.name, a.score, a.ci.low, a.ci.high, a.roof_ratio, a.efficiency, a.members,
             a.valid_members, int64_t{a.incomplete}});
}

}  // namespace

void check_score_figures(const ScoreResult& r, const std::string& what) {
  for (const auto& c : r.categories) check_aggregate(c, what);
  check_aggregate(r.overall, what);
  if (r.machine.cores_used < 0) throw UserError(what + ": machine.cores_used is negative");
}

std::optional<std::string> store_score(Connection& c, const ScoreResult& r,
                                       const std::map<std::string, std::string>& tags) {
  check_score_figures(r, "score result");
  const MachineDesc& m = r.machine.machine;
  const MachineFingerprint fp = fingerprint_of(m, nullptr);
  const std::string uuid = random_uuid(), now = now_iso8601_utc(), text = score_to_json(r, -1);
  Transaction t(c);
  const auto fleet = tags.find(kFleetTag);
  if (fleet != tags.end()) lock_fleet(c, fleet->second);  // before reading: another attempt may be storing
  if (!c.query("SELECT 1 FROM scores WHERE machine = ? AND created_at = ? AND result = ?", {fp.id, r.created_at, text})
           .empty())
    return std::nullopt;
  c.query("INSERT INTO machines (id, cpu, cores, threads, memory_bytes, os, first_seen) VALUES (?, ?, ?, ?, ?, ?, ?)"
          " ON CONFLICT (id) DO NOTHING",
          {fp.id, fp.cpu, fp.cores, fp.threads, static_cast<int64_t>(fp.memory_bytes), fp.os, now});
  auto rows = c.query(
      "INSERT INTO scores (uuid, created_at, stored_at, machine, suite, quick, kind, device, cpu, cores, threads,"
      " cores_used, isa, memory_bytes, os, kernel, runtime, runtime_version, rooflens_version, rooflens_commit, roofs,"
      " overall, overall_low, overall_high, roof_ratio, efficiency, incomplete, partial, result) VALUES (?, ?, ?, ?, ?,"
      " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      {uuid, r.created_at, now, fp.id, r.suite, int64_t{r.quick}, r.kind, r.device, m.model, m.cores, m.threads,
       r.machine.cores_used, strings_json(m.isa), static_cast<int64_t>(std::min<uint64_t>(m.memory_bytes, INT64_MAX)),
       m.os, m.kernel, r.machine.runtime.name, r.machine.runtime.version, r.machine.tool.version,
       r.machine.tool.commit, r.machine.roofs, r.overall.score, r.overall.ci.low, r.overall.ci.high,
       r.overall.roof_ratio, r.overall.efficiency, int64_t{r.overall.incomplete}, int64_t{r.partial},
       text});
  if (rows.size() != 1 || rows[0].empty()) throw DbError("inserting a score returned no id");
  const int64_t id = parse_int(rows[0][0], "scores.id");
  insert_categories(c, id, r.categories);
  for (const auto& [k, v] : tags) c.query("INSERT INTO score_tags (score_id, key, value) VALUES (?, ?, ?)", {id, k, v});
  if (fleet != tags.end()) supersede_fleet_scores(c, fleet->second, {fp.id, r.suite, r.quick, r.kind});
  t.commit();
  return uuid;
}

StoredScore score_from_rows(const Row& row, const std::vector<Row>& categories) {
  if (row.size() != 23) throw DbError("table scores: a row of " + std::to_string(row.size()) + " columns, not 23");
  StoredScore s;
  s.uuid = parse_text(row[0], "scores.uuid");
  try {
    s.result = score_from_json(parse_text(row[22], "scores.result"));
    check_score_figures(s.result, "score " + s.uuid);
  } catch (const DbError&) {
    throw;
  } catch (const UserError& e) {
    throw DbError("column scores.result of score " + s.uuid + ": " + e.what());
  }
  const ScoreResult& r = s.result;
  const MachineDesc& m = r.machine.machine;
  s.stored_at = parse_text(row[2], "scores.stored_at");
  s.machine = parse_text(row[3], "scores.machine");
  if (parse_text(row[1], "scores.created_at") != r.created_at) disagree("scores.created_at", s.uuid);
  if (s.machine != fingerprint_of(m, nullptr).id) disagree("scores.machine", s.uuid);
  if (parse_text(row[4], "scores.suite") != r.suite) disagree("scores.suite", s.uuid);
  if (flag(row[5], "scores.quick") != r.quick) disagree("scores.quick", s.uuid);
  if (parse_text(row[6], "scores.kind") != r.kind) disagree("scores.kind", s.uuid);
  if (parse_text(row[7], "scores.device") != r.device) disagree("scores.device", s.uuid);
  if (parse_text(row[8], "scores.cpu") != m.model) disagree("scores.cpu", s.uuid);
  if (parse_int(row[9], "scores.cores") != m.cores) disagree("scores.cores", s.uuid);
  if (parse_int(row[10], "scores.threads") != m.threads) disagree("scores.threads", s.uuid);
  if (parse_int(row[11], "scores.cores_used") != r.machine.cores_used) disagree("scores.cores_used", s.uuid);
  if (parse_int(row[12], "scores.memory_bytes") != static_cast<int64_t>(std::min<uint64_t>(m.memory_bytes, INT64_MAX)))
    disagree("scores.memory_bytes", s.uuid);
  if (parse_text(row[13], "scores.runtime") != r.machine.runtime.name) disagree("scores.runtime", s.uuid);
  if (parse_text(row[14], "scores.rooflens_version") != r.machine.tool.version)
    disagree("scores.rooflens_version", s.uuid);
  const ScoreAggregate& o = r.overall;
  if (!same(parse_double(row[15], "scores.overall"), o.score)) disagree("scores.overall", s.uuid);
  if (!same(parse_double(row[16], "scores.overall_low"), o.ci.low)) disagree("scores.overall_low", s.uuid);
  if (!same(parse_double(row[17], "scores.overall_high"), o.ci.high)) disagree("scores.overall_high", s.uuid);
  if (!same(parse_double(row[18], "scores.roof_ratio"), o.roof_ratio)) disagree("scores.roof_ratio", s.uuid);
  if (!same(parse_double(row[19], "scores.efficiency"), o.efficiency)) disagree("scores.efficiency", s.uuid);
  if (flag(row[20], "scores.incomplete") != o.incomplete) disagree("scores.incomplete", s.uuid);
  if (flag(row[21], "scores.partial") != r.partial) disagree("scores.partial", s.uuid);
  if (categories.size() != r.categories.size()) disagree("score_categories", s.uuid);
  for (size_t i = 0; i < categories.size(); ++i) {
    const Row& c = categories[i];
    const ScoreAggregate& a = r.categories[i];
    if (c.size() != 9) throw DbError("table score_categories: a row of " + std::to_string(c.size()) + " columns, not 9");
    if (parse_text(c[0], "score_categories.name") != a.name || !same(parse_double(c[1], "score_categories.score"), a.score) ||
        !same(parse_double(c[2], "score_categories.low"), a.ci.low) ||
        !same(parse_double(c[3], "score_categories.high"), a.ci.high) ||
        !same(parse_double(c[4], "score_categories.roof_ratio"), a.roof_ratio) ||
        !same(parse_double(c[5], "score_categories.efficiency"), a.efficiency) ||
        parse_int(c[6], "score_categories.members") != a.members ||
        parse_int(c[7], "score_categories.valid_members") != a.valid_members ||
        flag(c[8], "score_categories.incomplete") != a.incomplete)
      disagree("score_categories", s.uuid);
  }
  return s;
}

std::vector<StoredScore> load_scores(Connection& c, const ScoreQuery& q) {
  std::string where = " WHERE 1 = 1";
  std::vector<SqlValue> params;
  if (!q.suite.empty()) {
    where += " AND suite = ?";
    params.emplace_back(q.suite);
  }
  if (!q.machine.empty()) {
    where += " AND substr(machine, 1, ?) = ?";  // a prefix: substr, so '%' and '_' mean themselves
    params.emplace_back(static_cast<int64_t>(q.machine.size()));
    params.emplace_back(q.machine);
  }
  if (!q.since.empty()) {
    where += " AND created_at >= ?";
    params.emplace_back(q.since);
  }
  if (q.measured_only) where += " AND kind = 'measured'";
  if (!q.with_superseded) where += " AND superseded_by = ''";
  for (const auto& [k, v] : q.tags) {
    where += " AND EXISTS (SELECT 1 FROM score_tags t WHERE t.score_id = scores.id AND t.key = ? AND t.value = ?)";
    params.emplace_back(k);
    params.emplace_back(v);
  }
  std::map<int64_t, std::vector<Row>> categories;
  for (auto& row : c.query("SELECT sc.score_id, sc.name, sc.score, sc.low, sc.high, sc.roof_ratio, sc.efficiency,"
                           " sc.members, sc.valid_members, sc.incomplete FROM score_categories sc"
                           " ORDER BY sc.score_id, sc.seq")) {
    const int64_t id = parse_int(row[0], "score_categories.score_id");
    row.erase(row.begin());
    categories[id].push_back(std::move(row));
  }
  std::map<int64_t, std::map<std::string, std::string>> tags;
  for (const auto& row : c.query("SELECT score_id, key, value FROM score_tags"))
    tags[parse_int(row[0], "score_tags.score_id")][parse_text(row[1], "score_tags.key")] =
        parse_text(row[2], "score_tags.value");
  std::vector<StoredScore> out;
  for (auto& row : c.query(std::string("SELECT id, superseded_by, ") + kScoreColumns + " FROM scores" + where +
                               " ORDER BY created_at, id",
                           params)) {
    const int64_t id = parse_int(row[0], "scores.id");
    const std::string superseded_by = parse_text(row[1], "scores.superseded_by");
    row.erase(row.begin(), row.begin() + 2);
    out.push_back(score_from_rows(row, categories[id]));
    out.back().tags = std::move(tags[id]);
    out.back().superseded_by = superseded_by;
  }
  return out;
}

}  // namespace rooflens::db
