// JSON-lines form of a history session ("schema": "rooflens.history/1"): what `rooflens db export` writes and
// `db import` reads. The reader is strict — it takes files from other machines and other people — and every
// failure is one UserError line naming the field; tests/fuzz/fuzz_history.cpp feeds it arbitrary bytes.
#include <cmath>
#include <set>

#include "core/errors.h"
#include "core/history.h"
#include "core/json_fields.h"
#include "core/repetitions.h"

namespace rooflens {
namespace {

constexpr size_t kMaxText = 1 << 20;  // no single string of a session needs more than 1 MiB

const json& field(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) throw UserError(where + ": missing field '" + key + "'");
  return *it;
}

std::string text(const json& j, const char* key, const std::string& where, bool required = true) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (required) throw UserError(where + ": missing field '" + key + "'");
    return "";
  }
  if (!it->is_string()) throw UserError(where + "." + key + ": expected a string");
  const auto& s = it->get_ref<const std::string&>();
  if (s.size() > kMaxText) throw UserError(where + "." + key + ": longer than 1 MiB");
  return s;
}

double number(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) return 0;
  if (!it->is_number()) throw UserError(where + "." + key + ": expected a number");
  double v = it->get<double>();
  if (!std::isfinite(v)) throw UserError(where + "." + key + ": not a finite number");
  return v;
}

int64_t count(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) return 0;
  if (!it->is_number_integer()) throw UserError(where + "." + key + ": expected an integer");
  int64_t v = it->get<int64_t>();
  if (v < 0) throw UserError(where + "." + key + ": negative");
  return v;
}

bool is_iso8601_utc(const std::string& s) {
  // YYYY-MM-DDTHH:MM:SS[.ffffff]Z: the one form that sorts as text (sessions are ordered by it).
  static const char* shape = "dddd-dd-ddTdd:dd:dd";
  if (s.size() < 20 || s.back() != 'Z') return false;
  for (size_t i = 0; i < 19; ++i)
    if (shape[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != shape[i]) return false;
  if (s.size() == 20) return true;
  if (s[19] != '.' || s.size() < 22 || s.size() > 30) return false;
  for (size_t i = 20; i + 1 < s.size(); ++i)
    if (!(s[i] >= '0' && s[i] <= '9')) return false;
  return true;
}

json latency_json(const LatencyStats& l) { return l; }

LatencyStats latency_from(const json& j, const std::string& where) {
  if (!j.is_object()) throw UserError(where + ": expected an object");
  LatencyStats l;
  l.n = count(j, "n", where);
  l.min = number(j, "min", where);
  l.max = number(j, "max", where);
  l.mean = number(j, "mean", where);
  l.median = number(j, "median", where);
  l.p90 = number(j, "p90", where);
  l.p95 = number(j, "p95", where);
  l.p99 = number(j, "p99", where);
  l.std = number(j, "std", where);
  l.cv = number(j, "cv", where);
  return l;
}

std::vector<std::string> strings(const json& j, const std::string& where) {
  if (!j.is_array()) throw UserError(where + ": expected an array of strings");
  std::vector<std::string> out;
  for (const auto& v : j) {
    if (!v.is_string()) throw UserError(where + ": expected an array of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

// Milliseconds: an array of non-negative finite numbers.
std::vector<double> times(const json& j, const std::string& where) {
  if (!j.is_array()) throw UserError(where + ": expected an array of numbers");
  std::vector<double> out;
  for (const auto& v : j) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
      throw UserError(where + ": expected non-negative finite numbers");
    out.push_back(v.get<double>());
  }
  return out;
}

HistoryReference reference_from(const json& j, const std::string& where) {
  if (!j.is_object()) throw UserError(where + ": expected an object");
  HistoryReference r;
  r.model = text(j, "model", where);
  if (r.model.empty()) throw UserError(where + ".model: empty (a run without a reference has no 'reference')");
  r.model_hash = text(j, "model_hash", where, false);
  r.run_medians = times(field(j, "run_medians", where), where + ".run_medians");
  return r;
}

HistoryRun run_from(const json& j, const std::string& where) {
  if (!j.is_object()) throw UserError(where + ": expected an object");
  static const std::set<std::string> statuses{"pass", "fail", "timeout", "crash", "skip"};
  HistoryRun r;
  r.model = text(j, "model", where);
  r.model_hash = text(j, "model_hash", where, false);
  r.backend = text(j, "backend", where, false);
  r.options = text(j, "options", where, false);
  r.config = text(j, "config", where);
  r.status = text(j, "status", where);
  if (!statuses.count(r.status)) throw UserError(where + ".status: '" + r.status + "' is not pass|fail|timeout|crash|skip");
  r.error = text(j, "error", where, false);
  if (j.contains("latency_ms")) r.latency_ms = latency_from(j.at("latency_ms"), where + ".latency_ms");
  if (j.contains("samples_ms")) r.samples_ms = times(j.at("samples_ms"), where + ".samples_ms");
  if (j.contains("repetitions")) {
    const json& s = j.at("repetitions");
    if (!s.is_array()) throw UserError(where + ".repetitions: expected an array of counts");
    for (const auto& v : s) {
      if (!v.is_number_integer()) throw UserError(where + ".repetitions: expected an array of counts");
      r.repetitions.push_back(v.get<int64_t>());
    }
    std::string bad = partition_error(r.repetitions, r.samples_ms.size());
    if (!bad.empty()) throw UserError(where + ".repetitions: " + bad);
  }
  if (j.contains("layers")) {
    const json& ls = j.at("layers");
    if (!ls.is_array()) throw UserError(where + ".layers: expected an array");
    for (size_t i = 0; i < ls.size(); ++i) {
      std::string w = where + ".layers[" + std::to_string(i) + "]";
      if (!ls[i].is_object()) throw UserError(w + ": expected an object");
      HistoryLayer l;
      l.name = text(ls[i], "name", w);
      l.op = text(ls[i], "op", w, false);
      l.time_ms = number(ls[i], "time_ms", w);
      if (ls[i].contains("onnx_nodes")) l.onnx_nodes = strings(ls[i].at("onnx_nodes"), w + ".onnx_nodes");
      r.layers.push_back(std::move(l));
    }
  }
  if (j.contains("reference")) r.reference = reference_from(j.at("reference"), where + ".reference");
  if (j.contains("peak_rss_bytes")) {
    const json& v = j.at("peak_rss_bytes");
    if (!v.is_number_unsigned()) throw UserError(where + ".peak_rss_bytes: expected a count of bytes");
    r.peak_rss_bytes = v.get<uint64_t>();
  }
  return r;
}

MachineFingerprint machine_from(const json& j, const std::string& where) {
  if (!j.is_object()) throw UserError(where + ": expected an object");
  MachineFingerprint m;
  m.id = text(j, "id", where);
  if (m.id.empty() || m.id.size() > 64) throw UserError(where + ".id: expected 1-64 characters");
  m.cpu = text(j, "cpu", where, false);
  m.cores = count(j, "cores", where);
  m.threads = count(j, "threads", where);
  m.memory_bytes = static_cast<uint64_t>(count(j, "memory_bytes", where));
  m.os = text(j, "os", where, false);
  m.kernel = text(j, "kernel", where, false);
  m.roofs_hash = text(j, "roofs_hash", where, false);
  return m;
}

}  // namespace

std::string history_session_to_json_line(const HistorySession& s) {
  json machine{{"id", s.machine.id},     {"cpu", s.machine.cpu}, {"cores", s.machine.cores},
               {"threads", s.machine.threads}, {"memory_bytes", s.machine.memory_bytes},
               {"os", s.machine.os},     {"kernel", s.machine.kernel}, {"roofs_hash", s.machine.roofs_hash}};
  json runs = json::array();
  for (const auto& r : s.runs) {
    json layers = json::array();
    for (const auto& l : r.layers)
      layers.push_back(json{{"name", l.name}, {"op", l.op}, {"time_ms", l.time_ms}, {"onnx_nodes", l.onnx_nodes}});
    runs.push_back(json{{"model", r.model},
                        {"model_hash", r.model_hash},
                        {"backend", r.backend},
                        {"options", r.options},
                        {"config", r.config},
                        {"status", r.status},
                        {"error", r.error},
                        {"latency_ms", latency_json(r.latency_ms)},
                        {"samples_ms", r.samples_ms},
                        {"repetitions", r.repetitions},
                        {"layers", layers}});
    if (!r.reference.model.empty())  // written only when there is one: lines of runs without stay as they were
      runs.back()["reference"] = json{{"model", r.reference.model},
                                      {"model_hash", r.reference.model_hash},
                                      {"run_medians", r.reference.run_medians}};
    if (r.peak_rss_bytes) runs.back()["peak_rss_bytes"] = r.peak_rss_bytes;  // likewise: only when measured
  }
  json j{{"schema", kHistorySchema}, {"id", s.id},           {"created_at", s.created_at},
         {"command", s.command},     {"rooflens_version", s.rooflens_version},
         {"runtime", s.runtime},     {"settings", s.settings}, {"machine", machine},
         {"tags", s.tags},           {"runs", runs}};
  // Invalid UTF-8 (a layer name cut mid-character by a runtime) is replaced, never a reason to lose the session.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

HistorySession history_session_from_json(const std::string& line) {
  json j = json::parse(line, nullptr, false);
  if (j.is_discarded()) throw UserError("not JSON");
  if (!j.is_object()) throw UserError("expected a JSON object (one session per line)");
  const std::string schema = text(j, "schema", "session");
  if (schema != kHistorySchema)
    throw UserError("schema '" + schema + "' is not " + kHistorySchema + " (written by another rooflens?)");
  HistorySession s;
  s.id = text(j, "id", "session");
  if (s.id.empty() || s.id.size() > 64) throw UserError("session.id: expected 1-64 characters");
  s.created_at = text(j, "created_at", "session");
  if (!is_iso8601_utc(s.created_at))
    throw UserError("session.created_at: '" + s.created_at.substr(0, 40) + "' is not YYYY-MM-DDTHH:MM:SS[.ffffff]Z");
  s.command = text(j, "command", "session");
  s.rooflens_version = text(j, "rooflens_version", "session", false);
  s.runtime = text(j, "runtime", "session", false);
  s.settings = text(j, "settings", "session", false);
  s.machine = machine_from(field(j, "machine", "session"), "session.machine");
  if (j.contains("tags")) {
    const json& t = j.at("tags");
    if (!t.is_object()) throw UserError("session.tags: expected an object of strings");
    for (const auto& [k, v] : t.items()) {
      if (!v.is_string()) throw UserError("session.tags." + k.substr(0, 40) + ": expected a string");
      s.tags[k] = v.get<std::string>();
    }
  }
  const json& runs = field(j, "runs", "session");
  if (!runs.is_array()) throw UserError("session.runs: expected an array");
  for (size_t i = 0; i < runs.size(); ++i)
    s.runs.push_back(run_from(runs[i], "session.runs[" + std::to_string(i) + "]"));
  return s;
}

}  // namespace rooflens
