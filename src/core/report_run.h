#pragma once
// The report's measured runs (`runs`, `failures`, `backends`, core/report.h): one ProfileRun per configuration measured
// on a backend (its samples, repetitions, layers and settings), the configurations that failed, and the backends.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/int8_kernels.h"
#include "core/memory.h"
#include "core/report_layer.h"
#include "core/run_key.h"
#include "core/run_settings.h"

namespace rooflens {

struct LatencyStats {             // milliseconds; percentiles nearest-rank; std is the sample std (n-1)
  int64_t n = 0;
  double min = 0, max = 0, mean = 0, median = 0, p90 = 0, p95 = 0, p99 = 0, std = 0, cv = 0;
};

struct PhaseStats {                      // one part of every e2e iteration (imports: "h2d", "compute", "d2h", ...)
  std::string name;
  LatencyStats ms;
};

// `profile --reference REF.onnx`: a fixed model timed in turns with the run, in the same session on the same
// machine (REF, MODEL, MODEL, REF, ...), each repetition of one right beside the same repetition of the other. The
// host's level of the moment touches both alike, so the run's medians over the reference's (core/reference_ratio.h) stay
// put when the machine steps 20% faster or slower between sessions, and `history --check` judges that ratio.
struct ReferenceTiming {
  std::string model;                     // the reference's file, as given
  std::string name;                      // its model name, as reports name models
  std::vector<double> latencies_ms;      // its samples, repetition after repetition
  std::vector<int64_t> repetitions;      // samples per repetition: repetition i ran beside the run's repetition i

  std::vector<double> repetition_medians() const;  // in order: [i] pairs with the run's repetition i
};

struct ProfileRun : RunKey {              // the key: backend, batch, dims, threads (core/run_key.h)
  std::vector<double> latencies_ms;      // raw e2e samples, profiling off (for compare), repetition after repetition
  std::vector<int64_t> repetitions;      // samples per repetition, in order; they partition latencies_ms. Empty
                                         // (reports before --repeat) = one repetition. What a repetition is, fresh
                                         // or a turn (live_from below): core/repetitions.h
  LatencyStats latency_ms;               // over all samples of all repetitions
  double throughput_per_s = 0;           // batch * iterations / wall time
  double wall_s = 0;
  std::string stop_reason;
  double load_ms = 0;
  LatencyStats profiled_latency_ms;      // profiled iterations (profiling on)
  double profiling_overhead = 0;         // profiled mean / plain mean
  double coverage = 0;                   // median over profiled iterations of Σ kernel times / that iteration's run
                                         // (as the runtime timed it); reports before it: Σ layer medians / median run
  // The engine whose own roofs the layers are placed against (HardwareInfo::engines: "wasm:node"); "" the machine's.
  std::string roofs_engine;
  std::optional<double> between_kernels_ms;  // median over profiled iterations of run - Σ kernel times: the runtime's
                                         // own time between kernels (the layer tables' last row); absent in older reports
  std::optional<double> profiled_run_ms; // median profiled run as the runtime's own profile timed it (the clock the
                                         // kernels are on); absent in older reports
  uint64_t peak_rss_bytes = 0;
  // The runner process's minor page faults over each repetition's measured iterations, beside `repetitions` (empty
  // when a repetition's source did not count them), and their mean per iteration: a run whose outputs land on memory
  // the process never touched pays one a 4 KiB page inside its time — a state of the process that can last.
  std::vector<int64_t> repetition_page_faults;
  std::optional<double> page_faults_per_run;
  uint64_t flops = 0, macs = 0;          // analysis totals for these dims
  double gflops = 0;                     // effective: flops / median latency
  std::vector<Layer> layers;             // in execution order
  std::vector<NodeFate> unowned;         // folded / eliminated user nodes
  int64_t unmapped_kernels = 0;          // kernels not mapped to any user node (should be 0)
  std::vector<std::string> warnings;
  std::string layers_error;              // why layer times are missing although asked for (the profiled run
                                         // failed after the timed run succeeded); "" otherwise
  // Added with import (written only when known):
  std::vector<PhaseStats> phases;        // e2e iterations split into parts, as the source timed them
  std::optional<uint64_t> weights_bytes, activations_bytes;  // the engine's weights; Σ of its layers' tensors
  std::optional<ReferenceTiming> reference;  // profile --reference: the other side of this run's turns
  // The index of the first repetition that was a turn on a live runner (ProfileOptions::live_timing: `compare`'s
  // turns, `--reference`'s) instead of a fresh runner; every later one is a turn too. Absent when every repetition
  // had a fresh runner. Read it through the functions below, never directly (core/repetitions.h).
  std::optional<int64_t> live_from;
  // What the run ran with (core/run_settings.h; written only when known, so older reports round-trip unchanged):
  std::vector<RunSetting> settings;               // every performance option: effective value and its source
  std::optional<ThreadsObserved> threads_observed;  // the runtime's thread pool as its profile showed it
  std::optional<DispatchBreakdown> dispatch;      // where between_kernels_ms goes, as far as the source timed it
  std::optional<RunMemory> memory;                // predicted in the executed order, measured, explained
  std::optional<Int8Check> int8_check;            // its outputs against an unoptimized run (core/int8_kernels.h)

  // The run's repetitions, read one way everywhere (what a repetition is: core/repetitions.h).
  // True when every repetition had a fresh runner, so the spread of their medians is run-to-run variation; false when
  // later ones were turns, whose medians follow the host's spells (what pairs them with the other side cancels).
  bool repetitions_are_fresh_runs() const { return !live_from; }
  std::vector<double> repetition_medians() const;  // in order
};

struct Failure : RunKey {                // the configuration that failed
  std::string stage;                     // "load" | "run" | "profile" | "analysis" (where it stopped)
  std::string kind;                      // "error" | "timeout" | "died" | "interrupted"
  std::string message;
  std::string stderr_tail;
};

struct BackendInfo {
  std::string name, version;             // "onnxruntime", "1.30.0"
  std::map<std::string, std::string> options;   // as applied, in the backend's own names
  std::string runtime;                   // e.g. "onnxruntime-node 1.30.0 on node 20.20.2"
  std::string label;                     // how runs name it (RunKey::backend): the name, or the whole -B text
                                         // when a report has two configurations of one backend
  std::string roofs_engine;              // the engine whose roofs its runs' layers meet (Measurement::roofs_engine,
                                         // e.g. "wasm:node"); empty: the CPU's own
};

}  // namespace rooflens
