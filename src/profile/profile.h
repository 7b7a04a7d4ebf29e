#pragma once
// `rooflens profile`: one options struct, one driver. For every backend (-B, repeatable) and every configuration of
// the grid (batch x swept dims x threads): the model analysed at those dims -> the backend runs it (fresh process:
// load, timed run with profiling off, profiled run) -> assemble_run (assembly/) maps its kernels to the user's
// nodes -> a ProfileRun; with --repeat N, N-1 more timed runs, each in a fresh process, in rounds over the grid.
// The report is rewritten atomically after every run, so a crash, a kill or Ctrl-C never loses finished work.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/report.h"
#include "core/timing.h"
#include "model/shapes.h"
#include "profile/int8_check.h"

namespace rooflens {

struct SweepAxis {
  std::string dim;                 // a symbolic input dim, or "threads"
  std::vector<int64_t> values;
};

struct ProfileOptions {
  std::string model;
  std::vector<BackendSpec> backends{BackendSpec{}};  // -B, repeatable; several make one report of several runtimes
  std::vector<int64_t> batches;    // empty: the model's own (1 for a dynamic batch)
  std::vector<SweepAxis> sweeps;
  ShapeOverrides shapes;           // --shape / --dim (batch comes from `batches`)
  int threads = 0;                 // intra-op threads, 0 = backend default
  TimingOptions timing;
  // Timed runs per configuration (--repeat), each in a fresh runner; the grid is run round-robin (every
  // configuration of every backend once, then again, ...). The profiled run for layers happens once, in the first.
  int repeat = 1;
  // Rounds after the first on one live runtime process per configuration (the backend's live runner, loaded
  // once and left idle between rounds), each timed as `live_timing` says — short turns that `compare` alternates
  // between two models far faster than fresh runners can start. Unset: every round in a fresh runner.
  std::optional<TimingOptions> live_timing;
  std::chrono::milliseconds timeout{std::chrono::minutes(15)};  // per stage of one configuration
  std::map<std::string, std::string> input_files;  // --input NAME=FILE
  std::string report_path;         // -f; "" = not written while running
  // --int8-check: when an int8 run's outputs are compared with an unoptimized run (profile/int8_check.h), once per
  // configuration after its first run.
  Int8CheckMode int8_check = Int8CheckMode::automatic;
  // The CPU features of the machine the runs run on (the CLI: rooflens' cpuid), for the int8 check's verdict when
  // the roofs name none (--no-roofs, a datasheet); the roofs' machine is the report's machine when they do.
  std::vector<std::string> isa;
};

// "1-64" -> 1,2,4,...,64 (powers of two, as PRoof and trtexec sweep); "1,8,32" -> as listed; "4" -> 4.
// Throws UsageError naming `flag` on malformed or non-positive values.
std::vector<int64_t> parse_int_list(const std::string& text, const std::string& flag);
// "seq=128,256" or "threads=1,2" -> axis. Throws UsageError.
SweepAxis parse_sweep(const std::string& text);

// The configurations as requested (batch 0: the model's own; threads 0: the backend's default), grid order.
std::vector<RunKey> expand_grid(const ProfileOptions& o);

struct ProfileHooks {
  // Called before each stage: what is happening, configurations done, total.
  std::function<void(const std::string& what, size_t done, size_t total)> progress;
  const std::atomic<bool>* interrupted = nullptr;  // set from outside (Ctrl-C): stop after the current step
  // Called with a warning that must be seen before a configuration runs (its predicted memory need exceeds the
  // memory free here); it is also among the report's warnings.
  std::function<void(const std::string& warning)> warn;
  // Called when a run has layers above measured roofs (at most once per thread count): the ceilings they went above
  // measured again now, as hw::raise_roofs merges them; nullopt when none came out higher (the attribution errors
  // stand). The raised roofs become the report's, and every run so far is placed against them. Unset: no recheck.
  std::function<std::optional<HardwareInfo>(const HardwareInfo& roofs, const ProfileRun& run)> recheck_roofs;
  // Called when a run's kernels ran in an engine with roofs of its own (Measurement::roofs_engine: WebAssembly) that
  // the roofs lack: that engine's roofs for the backend `runtime` names (hw::engine_roofs_source: cached, else
  // `measure`d by the backend). They join the report's roofs. Unset: such runs meet the machine's native roofs.
  std::function<std::optional<EngineRoofs>(const std::string& engine, const std::string& runtime,
                                           const std::function<std::optional<EngineRoofs>()>& measure)>
      engine_roofs;
  // Called when a run's layers went above the roofs of the engine its kernels ran in (at most once per engine): that
  // engine's roofs (`have`; `runtime` as for engine_roofs) measured again by `measure`, merged as
  // hw::raise_engine_roofs does; nullopt when none came out higher. As for recheck_roofs, the raised roofs become the
  // report's and every run so far is placed against them. Unset: no recheck.
  std::function<std::optional<EngineRoofs>(const EngineRoofs& have, const std::string& runtime, const ProfileRun& run,
                                           const std::function<std::optional<EngineRoofs>()>& measure)>
      recheck_engine_roofs;
};

// Runs the whole grid on every backend (`backends` match o.backends one to one). `hw` (may be null) gives the roofs.
// Failures of single configurations are recorded in report.failures; errors that concern the whole model
// (unreadable file, bad flags) throw.
Report run_profile(const ProfileOptions& o, const std::vector<Backend*>& backends, const HardwareInfo* hw,
                   const ProfileHooks& hooks);

// The same, one run (one configuration, one round) per step(), for drivers that interleave two models run by run
// (`rooflens compare A.onnx B.onnx`): run_profile() is a ProfileDriver stepped until it returns false. The
// constructor loads and analyses the model (throws as run_profile does); report() is complete after the last step.
class ProfileDriver {
 public:
  ProfileDriver(const ProfileOptions& o, const std::vector<Backend*>& backends, const HardwareInfo* hw,
                 const ProfileHooks& hooks);
  ~ProfileDriver();
  ProfileDriver(const ProfileDriver&) = delete;
  ProfileDriver& operator=(const ProfileDriver&) = delete;
  bool step();     // false once every configuration has had every round, or after an interruption
  Report& report();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rooflens
