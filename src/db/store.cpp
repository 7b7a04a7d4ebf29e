#include "db/store.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <thread>

#include "core/fleet_tags.h"
#include "core/repetitions.h"
#include "db/fleet_store.h"
#include "db/rows.h"
#include "db/schema.h"

namespace rooflens::db {
namespace {

// TEST-ONLY (ROOFLENS_TEST_HOOKS=1 and ROOFLENS_TEST_DB_PAUSE=FILE): inside the session's transaction, after every
// row is written and before COMMIT, create FILE and sleep, so a test can kill the writer mid-transaction.
void pause_for_tests() {
  const char* hooks = std::getenv("ROOFLENS_TEST_HOOKS");
  const char* file = std::getenv("ROOFLENS_TEST_DB_PAUSE");
  if (!hooks || std::string(hooks) != "1" || !file || !*file) return;
  { std::ofstream(file) << ::getpid() << "\n"; }
  std::this_thread::sleep_for(std::chrono::seconds(60));
}

void insert_machine(Connection& c, const MachineFingerprint& m, const std::string& now) {
  c.query("INSERT INTO machines (id, cpu, cores, threads, memory_bytes, os, first_seen) VALUES (?, ?, ?, ?, ?, ?, ?)"
          " ON CONFLICT (id) DO NOTHING",
          {m.id, m.cpu, m.cores, m.threads, static_cast<int64_t>(m.memory_bytes), m.os, now});
}

int64_t returned_id(const std::vector<Row>& rows, const char* what) {
  if (rows.size() != 1 || rows[0].empty()) throw DbError(std::string("inserting a ") + what + " returned no id");
  return parse_int(rows[0][0], what);
}

void insert_run(Connection& c, int64_t session, int64_t seq, const HistoryRun& r) {
  std::vector<double> medians = repetition_medians(r.samples_ms, r.repetitions);
  const LatencyStats& l = r.latency_ms;
  auto rows = c.query(
      "INSERT INTO runs (session_id, seq, model, model_hash, backend, options, config, status, error, n, min_ms,"
      " max_ms, mean_ms, median_ms, p90_ms, p95_ms, p99_ms, std_ms, cv, center_ms, repetition_medians, repetitions,"
      " samples, reference_model, reference_hash, reference_medians, peak_rss_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?,"
      " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      {session, seq, r.model, r.model_hash, r.backend, r.options, r.config, r.status, r.error, l.n, l.min, l.max,
       l.mean, l.median, l.p90, l.p95, l.p99, l.std, l.cv, run_center(medians), doubles_json(medians),
       counts_json(r.repetitions), doubles_json(r.samples_ms), r.reference.model, r.reference.model_hash,
       doubles_json(r.reference.run_medians), static_cast<int64_t>(std::min<uint64_t>(r.peak_rss_bytes, INT64_MAX))});
  int64_t run = returned_id(rows, "run");
  int64_t i = 0;
  for (const auto& layer : r.layers)
    c.query("INSERT INTO layers (run_id, seq, name, op, time_ms, onnx_nodes) VALUES (?, ?, ?, ?, ?, ?)",
            {run, i++, layer.name, layer.op, layer.time_ms, strings_json(layer.onnx_nodes)});
}

LatencyStats latency_of(const Row& row, size_t at) {
  LatencyStats l;
  l.n = parse_int(row[at], "runs.n");
  l.min = parse_double(row[at + 1], "runs.min_ms");
  l.max = parse_double(row[at + 2], "runs.max_ms");
  l.mean = parse_double(row[at + 3], "runs.mean_ms");
  l.median = parse_double(row[at + 4], "runs.median_ms");
  l.p90 = parse_double(row[at + 5], "runs.p90_ms");
  l.p95 = parse_double(row[at + 6], "runs.p95_ms");
  l.p99 = parse_double(row[at + 7], "runs.p99_ms");
  l.std = parse_double(row[at + 8], "runs.std_ms");
  l.cv = parse_double(row[at + 9], "runs.cv");
  return l;
}

constexpr const char* kLatencyColumns = "r.n, r.min_ms, r.max_ms, r.mean_ms, r.median_ms, r.p90_ms, r.p95_ms, r.p99_ms,"
                                        " r.std_ms, r.cv";

// The three columns of the reference, from `at` (reference_model, reference_hash, reference_medians).
constexpr const char* kReferenceColumns = "r.reference_model, r.reference_hash, r.reference_medians";
HistoryReference reference_of(const Row& row, size_t at) {
  HistoryReference r;
  r.model = parse_text(row[at], "runs.reference_model");
  r.model_hash = parse_text(row[at + 1], "runs.reference_hash");
  r.run_medians = parse_doubles(row[at + 2], "runs.reference_medians");
  return r;
}

uint64_t rss_of(const std::optional<std::string>& text) {
  const int64_t v = parse_int(text, "runs.peak_rss_bytes");
  if (v < 0) throw DbError("column runs.peak_rss_bytes: negative (the database was not written by this rooflens?)");
  return static_cast<uint64_t>(v);
}

// The model × configuration pairs a session stored: what a fleet's later attempt supersedes by.
std::vector<std::pair<std::string, std::string>> run_keys(const HistorySession& s) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : s.runs) out.emplace_back(r.model, r.config);
  return out;
}

// The WHERE clause of a query over sessions `s`: constant text with placeholders; the values go in `params`.
std::string session_filter(const HistoryQuery& q, std::vector<SqlValue>& params) {
  std::string where = " WHERE 1 = 1";
  if (!q.since.empty()) {
    where += " AND s.created_at >= ?";
    params.emplace_back(q.since);
  }
  if (!q.machine.empty()) {
    // A prefix: substr, not LIKE, so '%' and '_' in the value mean themselves.
    where += " AND substr(s.machine, 1, ?) = ?";
    params.emplace_back(static_cast<int64_t>(q.machine.size()));
    params.emplace_back(q.machine);
  }
  for (const auto& [k, v] : q.tags) {
    where += " AND EXISTS (SELECT 1 FROM tags t WHERE t.session_id = s.id AND t.key = ? AND t.value = ?)";
    params.emplace_back(k);
    params.emplace_back(v);
  }
  return where;
}

}  // namespace

std::unique_ptr<ResultStore> ResultStore::open(const std::string& url) {
  DbUrl u = parse_db_url(url);
  std::unique_ptr<Connection> c = u.kind == DbKind::postgresql ? open_postgres(u) : open_sqlite(u);
  ensure_schema(*c);
  return std::make_unique<ResultStore>(std::move(c));
}

ResultStore::ResultStore(std::unique_ptr<Connection> c) : c_(std::move(c)) {}

bool ResultStore::store(const HistorySession& s) {
  Transaction t(*c_);
  const auto fleet = s.tags.find(kFleetTag);
  if (fleet != s.tags.end()) lock_fleet(*c_, fleet->second);  // before reading: another attempt may be storing
  if (!c_->query("SELECT 1 FROM sessions WHERE uuid = ?", {s.id}).empty()) return false;
  insert_machine(*c_, s.machine, s.created_at);
  auto rows = c_->query(
      "INSERT INTO sessions (uuid, created_at, command, machine, kernel, roofs_hash, rooflens_version, runtime,"
      " settings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      {s.id, s.created_at, s.command, s.machine.id, s.machine.kernel, s.machine.roofs_hash, s.rooflens_version,
       s.runtime, s.settings});
  int64_t session = returned_id(rows, "session");
  for (const auto& [k, v] : s.tags)
    c_->query("INSERT INTO tags (session_id, key, value) VALUES (?, ?, ?)", {session, k, v});
  int64_t seq = 0;
  for (const auto& r : s.runs) insert_run(*c_, session, seq++, r);
  if (fleet != s.tags.end()) {
    const auto task = s.tags.find(kTaskTag);
    supersede_fleet_runs(*c_, fleet->second, task == s.tags.end() ? "" : task->second, run_keys(s));
  }
  pause_for_tests();
  t.commit();
  return true;
}

std::vector<HistoryPoint> ResultStore::points(const HistoryQuery& q) {
  std::vector<SqlValue> params;
  std::string where = session_filter(q, params);
  std::map<int64_t, std::map<std::string, std::string>> tags;
  for (const auto& row : c_->query("SELECT t.session_id, t.key, t.value FROM tags t JOIN sessions s ON s.id = t.session_id" +
                                       where,
                                   params))
    tags[parse_int(row[0], "tags.session_id")][parse_text(row[1], "tags.key")] = parse_text(row[2], "tags.value");
  std::vector<HistoryPoint> out;
  auto rows = c_->query(std::string("SELECT s.id, s.uuid, s.created_at, s.command, s.rooflens_version, s.runtime,"
                                    " s.machine, r.model, r.model_hash, r.backend, r.options, r.config, r.status,"
                                    " r.error, r.center_ms, r.repetition_medians, ") +
                            kLatencyColumns + ", " + kReferenceColumns + ", r.peak_rss_bytes, r.superseded_by" +
                            " FROM runs r JOIN sessions s ON s.id = r.session_id" + where +
                            (q.with_superseded ? "" : " AND r.superseded_by = ''") +
                            " ORDER BY s.created_at, s.id, r.seq",
                        params);
  for (const auto& row : rows) {
    HistoryPoint p;
    int64_t session = parse_int(row[0], "sessions.id");
    p.session = parse_text(row[1], "sessions.uuid");
    p.created_at = parse_text(row[2], "sessions.created_at");
    p.command = parse_text(row[3], "sessions.command");
    p.rooflens_version = parse_text(row[4], "sessions.rooflens_version");
    p.runtime = parse_text(row[5], "sessions.runtime");
    p.machine = parse_text(row[6], "sessions.machine");
    p.model = parse_text(row[7], "runs.model");
    p.model_hash = parse_text(row[8], "runs.model_hash");
    p.backend = parse_text(row[9], "runs.backend");
    p.options = parse_text(row[10], "runs.options");
    p.config = parse_text(row[11], "runs.config");
    p.status = parse_text(row[12], "runs.status");
    p.error = parse_text(row[13], "runs.error");
    p.center_ms = parse_double(row[14], "runs.center_ms");
    p.run_medians = parse_doubles(row[15], "runs.repetition_medians");
    p.latency_ms = latency_of(row, 16);
    p.reference = reference_of(row, 26);
    p.peak_rss_bytes = rss_of(row[29]);
    p.superseded_by = parse_text(row[30], "runs.superseded_by");
    if (auto it = tags.find(session); it != tags.end()) p.tags = it->second;
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<MachineFingerprint> ResultStore::machines() {
  std::vector<MachineFingerprint> out;
  for (const auto& row : c_->query("SELECT id, cpu, cores, threads, memory_bytes, os FROM machines ORDER BY first_seen")) {
    MachineFingerprint m;
    m.id = parse_text(row[0], "machines.id");
    m.cpu = parse_text(row[1], "machines.cpu");
    m.cores = parse_int(row[2], "machines.cores");
    m.threads = parse_int(row[3], "machines.threads");
    m.memory_bytes = static_cast<uint64_t>(parse_int(row[4], "machines.memory_bytes"));
    m.os = parse_text(row[5], "machines.os");
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<std::string> ResultStore::session_ids() {
  std::vector<std::string> out;
  for (const auto& row : c_->query("SELECT uuid FROM sessions ORDER BY created_at, id"))
    out.push_back(parse_text(row[0], "sessions.uuid"));
  return out;
}

HistorySession ResultStore::load_session(const std::string& id) {
  auto rows = c_->query(
      "SELECT s.id, s.uuid, s.created_at, s.command, s.rooflens_version, s.runtime, s.settings, s.kernel,"
      " s.roofs_hash, m.id, m.cpu, m.cores, m.threads, m.memory_bytes, m.os FROM sessions s JOIN machines m ON"
      " m.id = s.machine WHERE s.uuid = ?",
      {id});
  if (rows.size() != 1) throw DbError("database " + c_->shown() + ": no session " + id);
  const Row& row = rows[0];
  HistorySession s;
  int64_t key = parse_int(row[0], "sessions.id");
  s.id = parse_text(row[1], "sessions.uuid");
  s.created_at = parse_text(row[2], "sessions.created_at");
  s.command = parse_text(row[3], "sessions.command");
  s.rooflens_version = parse_text(row[4], "sessions.rooflens_version");
  s.runtime = parse_text(row[5], "sessions.runtime");
  s.settings = parse_text(row[6], "sessions.settings");
  s.machine.kernel = parse_text(row[7], "sessions.kernel");
  s.machine.roofs_hash = parse_text(row[8], "sessions.roofs_hash");
  s.machine.id = parse_text(row[9], "machines.id");
  s.machine.cpu = parse_text(row[10], "machines.cpu");
  s.machine.cores = parse_int(row[11], "machines.cores");
  s.machine.threads = parse_int(row[12], "machines.threads");
  s.machine.memory_bytes = static_cast<uint64_t>(parse_int(row[13], "machines.memory_bytes"));
  s.machine.os = parse_text(row[14], "machines.os");
  for (const auto& t : c_->query("SELECT key, value FROM tags WHERE session_id = ? ORDER BY key", {key}))
    s.tags[parse_text(t[0], "tags.key")] = parse_text(t[1], "tags.value");
  std::map<int64_t, size_t> by_id;
  for (const auto& r : c_->query(std::string("SELECT r.id, r.model, r.model_hash, r.backend, r.options, r.config,"
                                             " r.status, r.error, r.repetitions, r.samples, ") +
                                     kLatencyColumns + ", " + kReferenceColumns + ", r.peak_rss_bytes" +
                                     " FROM runs r WHERE r.session_id = ? ORDER BY r.seq",
                                 {key})) {
    HistoryRun run;
    by_id[parse_int(r[0], "runs.id")] = s.runs.size();
    run.model = parse_text(r[1], "runs.model");
    run.model_hash = parse_text(r[2], "runs.model_hash");
    run.backend = parse_text(r[3], "runs.backend");
    run.options = parse_text(r[4], "runs.options");
    run.config = parse_text(r[5], "runs.config");
    run.status = parse_text(r[6], "runs.status");
    run.error = parse_text(r[7], "runs.error");
    run.repetitions = parse_counts(r[8], "runs.repetitions");
    run.samples_ms = parse_doubles(r[9], "runs.samples");
    if (std::string bad = partition_error(run.repetitions, run.samples_ms.size()); !bad.empty())
      throw DbError("database " + c_->shown() + ": column runs.repetitions: " + bad);
    run.latency_ms = latency_of(r, 10);
    run.reference = reference_of(r, 20);
    run.peak_rss_bytes = rss_of(r[23]);
    s.runs.push_back(std::move(run));
  }
  for (const auto& l : c_->query("SELECT l.run_id, l.name, l.op, l.time_ms, l.onnx_nodes FROM layers l JOIN runs r ON"
                                 " r.id = l.run_id WHERE r.session_id = ? ORDER BY l.run_id, l.seq",
                                 {key})) {
    auto it = by_id.find(parse_int(l[0], "layers.run_id"));
    if (it == by_id.end()) continue;
    s.runs[it->second].layers.push_back({parse_text(l[1], "layers.name"), parse_text(l[2], "layers.op"),
                                         parse_double(l[3], "layers.time_ms"), parse_strings(l[4], "layers.onnx_nodes")});
  }
  return s;
}

StoreCounts ResultStore::counts() {
  auto one = [this](const char* sql) {
    auto rows = c_->query(sql);
    return rows.empty() || rows[0].empty() ? int64_t{0} : parse_int(rows[0][0], "count");
  };
  return {one("SELECT count(*) FROM sessions"), one("SELECT count(*) FROM runs"), one("SELECT count(*) FROM layers"),
          one("SELECT count(*) FROM machines"), one("SELECT count(*) FROM runs WHERE superseded_by <> ''")};
}

}  // namespace rooflens::db
