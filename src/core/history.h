#pragma once
// The history data model: what the results database keeps of a command (`profile`, `bench`, `import`, ...) so
// results outlive a run. One HistorySession per invocation (stored in one transaction), holding one HistoryRun
// per model × configuration it measured, with the machine it ran on. Its JSON form ("schema":
// "rooflens.history/1", one session per line) is what `rooflens db export` writes and `db import` reads; see
// docs/history.md. Producers (profile reports, bench results) convert here; src/db/ stores and loads it;
// history/ and the reporters read it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/bench_results.h"
#include "core/report.h"

namespace rooflens {

inline constexpr const char* kHistorySchema = "rooflens.history/1";

// Where a session ran. Timings are comparable only between runs of one machine id.
struct MachineFingerprint {
  std::string id;                 // 16 hex digits: SHA-256 of cpu, cores, threads, memory (GiB), os — see below
  std::string cpu;                // CPU model ("Intel(R) Xeon(R) Processor")
  int64_t cores = 0, threads = 0;
  uint64_t memory_bytes = 0;
  std::string os, kernel;         // kernel is recorded, not part of the id (a security update is not new hardware)
  std::string roofs_hash;         // 16 hex digits of the measured roofs' figures ("" when none were used); recorded,
                                  // not part of the id (roofs are re-measured, with noise, by each rooflens version)
};

// The fingerprint of a machine description: the id hashes what decides how fast code runs here.
MachineFingerprint fingerprint_of(const MachineDesc& m, const HardwareInfo* roofs);
// 16 hex digits identifying the roofs' figures (compute and memory ceilings), "" for none.
std::string roofs_hash(const HardwareInfo& h);

struct HistoryLayer {             // one layer's median of a profiled run (ProfileRun::layers)
  std::string name, op;
  double time_ms = 0;
  std::vector<std::string> onnx_nodes;
};

// The reference a run was timed beside (profile --reference, core/reference_ratio.h): its repetition medians, the i-th
// measured right beside the run's i-th repetition. What `history --check` judges when the run has one.
struct HistoryReference {
  std::string model;              // its model name ("" = the run had no reference)
  std::string model_hash;         // SHA-256 of its file ("" when not readable)
  std::vector<double> run_medians;  // ms, one per repetition
};

struct HistoryRun {               // one model × configuration measured in a session
  std::string model;              // display name (report's model name, bench entry's model)
  std::string model_hash;         // SHA-256 of the .onnx file (64 hex digits), "" when the file was not readable
  std::string backend;            // "onnxruntime"
  std::string options;            // backend options as applied, "key=value,key=value" sorted ("" = defaults)
  std::string config;             // profile: the run label ("batch=1 threads=2"); bench: the -B label
  std::string status;             // pass | fail | timeout | crash | skip (core/comparison.h)
  std::string error;              // "stage: message" when not passed
  LatencyStats latency_ms;        // over all samples (n = 0 when not timed)
  std::vector<double> samples_ms; // raw end-to-end samples, repetition after repetition
  std::vector<int64_t> repetitions;  // samples per repetition (fresh runner); partitions samples_ms
  std::vector<HistoryLayer> layers;
  HistoryReference reference;     // profile --reference (empty model: none)
  uint64_t peak_rss_bytes = 0;    // the runner's own peak resident set (runs[].peak_rss_bytes, a bench entry's);
                                  // 0: not measured. `history --check` judges it against its own threshold
};

struct HistorySession {           // one rooflens invocation
  std::string id;                 // random UUID: the same session exported and imported twice is stored once
  std::string created_at;         // ISO 8601 UTC with microseconds ("2026-11-22T11:21:11.123456Z"): sorts as text
  std::string command;            // profile | bench | import | generate ...
  std::string rooflens_version;
  std::string runtime;            // the backends' runtimes, "; "-separated ("onnxruntime-node 1.30.0 on node 20.20.2")
  std::string settings;           // the timing options that shaped the samples, compact JSON ({"repeat":5,...})
  MachineFingerprint machine;
  std::map<std::string, std::string> tags;  // --tag key=value; --commit SHA is the tag "commit"
  std::vector<HistoryRun> runs;
};

// One run as a point of a trend: what `rooflens history` reads back from the database (no samples, no layers).
struct HistoryPoint {
  std::string session;              // HistorySession::id
  std::string created_at, command, rooflens_version, runtime;
  std::string machine;              // MachineFingerprint::id
  std::map<std::string, std::string> tags;
  std::string model, model_hash, backend, options, config, status, error;
  LatencyStats latency_ms;
  std::vector<double> run_medians;  // each repetition's median (ms), in order; empty when not timed
  double center_ms = 0;             // median of run_medians (0 when not timed): what trends plot and
                                    // `history --check` tests
  HistoryReference reference;       // profile --reference: then `history --check` tests the ratio to it
  uint64_t peak_rss_bytes = 0;      // HistoryRun::peak_rss_bytes
  // A fleet's run that a later attempt of the same model × configuration replaced: the uuid of the session kept in
  // its place (db/fleet_store.h). "" for every run trends and `history --check` read: they never see such runs.
  std::string superseded_by;
};

// A run's centre: the median of its repetition medians (for an even count, the geometric mean of the middle two);
// 0 without repetitions. A median, not a mean: one repetition disturbed by the machine (twice the others, as
// busy machines produce) would move a mean of five by 15% and does not move the median.
double run_center(const std::vector<double>& run_medians);

// A new session stamped now (random id, created_at = now) for `command` on `machine`.
HistorySession new_session(const std::string& command, const MachineFingerprint& machine);
std::string now_iso8601_utc();
std::string random_uuid();

// Producers. Model hashes are computed from the files named in the documents (unreadable: ""). Failures become
// runs with their status and no samples.
void add_report(HistorySession& s, const Report& r);
void add_bench_results(HistorySession& s, const BenchResults& r);
std::string options_text(const std::map<std::string, std::string>& options);  // "k=v,k=v"

// One session as one line of JSON (no newline) and back. The reader throws UserError with a one-line message on
// malformed input, another schema, or values out of range (negative counts, a partition that does not add up).
std::string history_session_to_json_line(const HistorySession& s);
HistorySession history_session_from_json(const std::string& line);

}  // namespace rooflens
