#pragma once
// How one configuration is timed. The one place its defaults live: the CLI binds its flags to these fields, and
// the driver hands the struct whole to the backend, whose runner process receives every field (it has no
// defaults of its own). See docs/runner-protocol.md for how the ONNX Runtime runner reads it.
#include <nlohmann/json.hpp>

namespace rooflens {

struct TimingOptions {
  int warmup_iterations = 1;     // warm-up runs: at least this many...
  double warmup_ms = 200;        // ...and at least this long (milliseconds)
  int iterations = 10;           // measured runs (profiling off): at least this many...
  double duration_s = 3;         // ...and at least this long (seconds)
  int max_iterations = 100000;   // caps on the measured runs, whatever the duration or the adaptive stop
  double max_duration_s = 600;
  bool adaptive = false;         // keep measuring until the median's confidence interval is within ±adaptive_rel_ci
  double adaptive_rel_ci = 0.01;
  double adaptive_confidence = 0.95;
  int profile_iterations = 10;   // measured profiled runs for layer times (after warmup_iterations of warm-up)
  bool layers = true;            // run the profiled inference session at all
  // Run the timed runner at all (profile --layers-only: no): without it a configuration has its layers and its
  // predicted memory but no end-to-end samples and no measured memory (a backend that cannot leave it out times it).
  bool timed = true;
  // --realtime: the runner process at real-time priority (SCHED_FIFO), its main thread and the runtime's intra-op
  // workers each on a CPU of their own, so the other processes of a busy machine cannot take its CPUs (normal
  // scheduling, with a warning in the run, where the system does not allow it). How the process is started, so
  // not part of the runner protocol's timing object.
  bool realtime = false;

  // `rooflens bench`'s benchmark mode: many small models, so shorter (≥ 1 run and ≥ 100 ms of warm-up, then
  // ≥ 10 runs and ≥ 1 s, at most 2000) with 5 profiled runs for metrics.csv.
  static TimingOptions bench();
};

// {"warmup_iterations": 1, "warmup_ms": 200, ...}: every field, as the runner protocol wants it.
nlohmann::ordered_json timing_to_json(const TimingOptions& t);

}  // namespace rooflens
