// Producers of the history data model: sessions stamped with a random id and the time, runs from profile reports
// and bench results, machine fingerprints.
#include "core/history.h"

#include <sys/time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <random>

#include <fmt/format.h>

#include "core/comparison.h"
#include "core/errors.h"
#include "core/repetitions.h"
#include "core/serving_items.h"
#include "core/sha256.h"
#include "core/stats.h"

namespace rooflens {
namespace {

// Hashes a model file once per session (bench sessions name each file once per configuration).
class ModelHashes {
 public:
  const std::string& of(const std::string& path) {
    auto it = cache_.find(path);
    if (it != cache_.end()) return it->second;
    std::string h;
    try {
      if (!path.empty()) h = sha256_file(path);
    } catch (const UserError&) {  // moved or deleted since it ran: the run is still worth keeping
    }
    return cache_.emplace(path, h).first->second;
  }

 private:
  std::map<std::string, std::string> cache_;
};

// A failure's configuration as `compare` names it: resolved (as a run would be) once the model loaded at its
// dims, as requested before.
std::string failure_label(const Failure& f) {
  if (f.batch > 0) return f.label();
  std::string s = f.backend.empty() ? "" : f.backend + " · ";
  std::string config;
  for (const auto& [k, v] : f.dims) config += fmt::format("{}{}={}", config.empty() ? "" : " ", k, v);
  if (f.threads > 0) config += fmt::format("{}threads={}", config.empty() ? "" : " ", f.threads);
  return s + (config.empty() ? "default" : config);
}

// A failed configuration (its `part`, for a generation run's two items). A later repetition of a configuration
// that ran failed: the configuration is failing (as compare sees it), so the run it replaces goes.
void add_failure(HistorySession& s, HistoryRun h, const Failure& f, const std::string& part) {
  h.config = failure_label(f) + part;
  h.status = status::of_failure(f.kind);
  h.error = one_line(f.stage.empty() ? f.message : f.stage + ": " + f.message);
  std::erase_if(s.runs, [&](const HistoryRun& x) {
    return x.status == "pass" && x.model == h.model && x.config == h.config && x.options == h.options;
  });
  s.runs.push_back(std::move(h));
}

}  // namespace

double run_center(const std::vector<double>& run_medians) {
  std::vector<double> v = run_medians;
  if (v.empty() || std::any_of(v.begin(), v.end(), [](double m) { return !(m > 0); })) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  // The middle two of an even count meet at their geometric mean: the centre of logs, as every figure here is.
  return n % 2 ? v[n / 2] : std::sqrt(v[n / 2 - 1] * v[n / 2]);
}

std::string roofs_hash(const HardwareInfo& h) {
  if (h.compute.empty() && h.memory.empty()) return "";
  Sha256 s;
  for (const auto& c : h.compute) s.update(fmt::format("c {} {} {} {:.6g}\n", c.name, c.dtype, c.threads, c.gflops));
  for (const auto& m : h.memory)
    s.update(fmt::format("m {} {} {} {:.6g}\n", m.level, m.kernel, m.threads, m.gbps));
  return s.hex().substr(0, 16);
}

MachineFingerprint fingerprint_of(const MachineDesc& m, const HardwareInfo* roofs) {
  MachineFingerprint f;
  // The signature beside the brand (hw/cpu_features.h): two generations behind one masked brand are two machines.
  f.cpu = m.model + (m.signature.empty() ? "" : " (" + m.signature + ")");
  f.cores = m.cores;
  f.threads = m.threads;
  f.memory_bytes = m.memory_bytes;
  f.os = m.os;
  f.kernel = m.kernel;
  if (roofs) f.roofs_hash = roofs_hash(*roofs);
  // Memory in whole GiB: the bytes a kernel reserves differ by a few MiB between boots and kernels.
  auto gib = static_cast<long long>(std::llround(static_cast<double>(m.memory_bytes) / (1024.0 * 1024 * 1024)));
  f.id = sha256_hex(fmt::format("cpu={}\ncores={}\nthreads={}\nmemory_gib={}\nos={}\n", f.cpu, m.cores, m.threads,
                                gib, m.os))
             .substr(0, 16);
  return f;
}

std::string now_iso8601_utc() {
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  std::tm tm{};
  time_t secs = tv.tv_sec;
  ::gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long>(tv.tv_usec));
  return buf;
}

std::string random_uuid() {
  // Version 4 (random) UUID from the OS's entropy: sessions written by many machines at once must not collide.
  std::random_device rd;
  uint8_t b[16];
  for (int i = 0; i < 16; i += 4) {
    uint32_t v = rd();
    for (int k = 0; k < 4; ++k) b[i + k] = static_cast<uint8_t>(v >> (8 * k));
  }
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);
  std::string s;
  static const char* digits = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += digits[b[i] >> 4];
    s += digits[b[i] & 0xf];
  }
  return s;
}

HistorySession new_session(const std::string& command, const MachineFingerprint& machine) {
  HistorySession s;
  s.id = random_uuid();
  s.created_at = now_iso8601_utc();
  s.command = command;
  s.rooflens_version = ROOFLENS_VERSION;
  s.machine = machine;
  return s;
}

std::string options_text(const std::map<std::string, std::string>& options) {
  std::string s;
  for (const auto& [k, v] : options) s += (s.empty() ? "" : ",") + k + "=" + v;
  return s;
}

namespace {
// A session of several backends (profile -B onnxruntime -B opencv) names every runtime, "; "-separated, once each.
void add_runtime(HistorySession& s, const std::string& runtime) {
  if (runtime.empty()) return;
  for (size_t at = 0; at <= s.runtime.size();) {
    size_t end = std::min(s.runtime.find("; ", at), s.runtime.size());
    if (s.runtime.compare(at, end - at, runtime) == 0) return;
    at = end + 2;
  }
  s.runtime += (s.runtime.empty() ? "" : "; ") + runtime;
}
}  // namespace

void add_report(HistorySession& s, const Report& r) {
  ModelHashes hashes;
  const std::string model = r.model.name.empty() ? r.model.path : r.model.name;
  const std::string hash = hashes.of(r.model.path);
  for (const auto& b : r.backends) add_runtime(s, b.runtime);
  // The backend a run names (RunKey::backend: its label in a report of several; "" when there is one).
  auto base = [&](const std::string& label) {
    HistoryRun h;
    h.model = model;
    h.model_hash = hash;
    for (const auto& b : r.backends)
      if (label.empty() || b.label == label) {
        h.backend = b.name;
        h.options = options_text(b.options);
        break;
      }
    return h;
  };
  if (r.generation)
    for (const auto& run : r.generation->runs)
      for (auto& g : generation_items(run)) {  // the items compare matches: TTFT and TPOT
        HistoryRun h = base("");
        h.config = g.config;
        h.status = "pass";
        h.latency_ms = *g.stats;
        h.samples_ms = *g.samples_ms;
        h.repetitions = std::move(g.repetitions);
        s.runs.push_back(std::move(h));
      }
  if (r.capacity) {  // the items compare matches: each scenario run and the configuration's headline
    for (const CapacityItem& item : capacity_items(*r.capacity)) {
      HistoryRun h = base("");
      h.config = item.config;
      h.status = "pass";
      h.latency_ms = summarize(item.samples_ms);
      h.samples_ms = item.samples_ms;
      h.repetitions = {static_cast<int64_t>(item.samples_ms.size())};
      s.runs.push_back(std::move(h));
    }
    for (const CapacityRun& run : r.capacity->runs)
      if (!run.failure.empty()) {
        HistoryRun h = base("");
        h.config = run.config.label();
        h.status = run.failure.rfind("not run", 0) == 0 ? "skip" : "fail";
        h.error = one_line(run.failure);
        s.runs.push_back(std::move(h));
      }
  }
  for (const ServingResult* run : serving_runs(r)) {  // the items compare matches: TTFT, TPOT, output ms/token
    for (ServingItem& item : serving_items(*run)) {
      HistoryRun h = base("");
      h.config = std::move(item.config);
      h.status = "pass";
      h.latency_ms = item.stats;
      if (!item.samples_ms.empty()) h.repetitions = {static_cast<int64_t>(item.samples_ms.size())};
      h.samples_ms = std::move(item.samples_ms);
      s.runs.push_back(std::move(h));
    }
    if (!run->fault.empty()) {  // the runner failed under the run: what it measured stands, and so does the fault
      HistoryRun h = base("");
      h.config = serving_label(run->settings);
      h.status = "fail";
      h.error = one_line(run->fault);
      s.runs.push_back(std::move(h));
    }
  }
  for (const auto& run : r.runs) {
    HistoryRun h = base(run.backend);
    h.config = run.label();
    h.status = "pass";  // the timed run stands even when the profiled one failed (layers are then empty)
    h.latency_ms = run.latency_ms;
    h.samples_ms = run.latencies_ms;
    h.repetitions = run.repetitions;
    for (const auto& l : run.layers) h.layers.push_back({l.name, l.op, l.time_ms, l.onnx_nodes});
    h.peak_rss_bytes = run.peak_rss_bytes;
    if (const auto& ref = run.reference)
      h.reference = {ref->name.empty() ? ref->model : ref->name, hashes.of(ref->model), ref->repetition_medians()};
    s.runs.push_back(std::move(h));
  }
  // A failed generation configuration fails both its items.
  const std::vector<std::string> parts = r.generation ? std::vector<std::string>{kTtftItem, kTpotItem}
                                                      : std::vector<std::string>{""};
  for (const auto& f : r.failures)
    for (const auto& part : parts) add_failure(s, base(f.backend), f, part);
}

void add_bench_results(HistorySession& s, const BenchResults& r) {
  ModelHashes hashes;
  std::map<std::string, const BenchConfig*> configs;
  for (const auto& c : r.configs) configs[c.label] = &c;
  for (const auto& c : r.configs) add_runtime(s, c.backend.runtime);
  for (const auto& e : r.entries) {
    HistoryRun h;
    h.model = e.model;
    h.model_hash = hashes.of(e.model_path);
    h.config = e.config;
    auto c = configs.find(e.config);
    if (c != configs.end()) {
      h.backend = c->second->backend.name;
      h.options = options_text(c->second->backend.options);
    }
    h.status = e.status;
    if (e.status != "pass") h.error = one_line(e.stage.empty() ? e.message : e.stage + ": " + e.message);
    h.latency_ms = e.latency_ms;
    h.samples_ms = e.latencies_ms;
    h.peak_rss_bytes = e.peak_rss_bytes > 0 ? static_cast<uint64_t>(e.peak_rss_bytes) : 0;
    h.repetitions = e.repetitions;
    // A resumed run may hold an entry twice: the later one replaces the earlier (as compare reads it).
    std::erase_if(s.runs, [&](const HistoryRun& x) { return x.model == h.model && x.config == h.config; });
    s.runs.push_back(std::move(h));
  }
}

}  // namespace rooflens
