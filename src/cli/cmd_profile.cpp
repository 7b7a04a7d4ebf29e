// `rooflens profile`: run a model on a backend, time it end to end and per layer, map layers to the user's
// nodes, place them on this machine's roofline, write one JSON report and print a summary.

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "backends/registry/registry.h"
#include "cli/commands.h"
#include "cli/output_flags.h"
#include "cli/db_flags.h"
#include "cli/interrupt.h"
#include "cli/progress.h"
#include "cli/roofs.h"
#include "cli/shape_flags.h"
#include "cli/timing_flags.h"
#include "compare/runtimes.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "hw/cpu_features.h"
#include "profile/profile.h"
#include "profile/with_reference.h"
#include "reporters/html_report.h"
#include "reporters/profile_summary.h"

namespace rooflens::cli {
namespace {

// The command's options: ProfileOptions as the driver takes it, bound directly where the flag is the field, plus
// the flags that need parsing first.
struct ProfileCommand {
  ProfileOptions o;
  std::vector<std::string> backends, sweeps, inputs;
  std::string batches, html, roofs, opt_level, int8_check = "auto";
  ShapeFlags shape;
  double timeout_s = 900;
  bool quiet = false, json = false, no_roofs = false;
  DbFlags db;
  ReferenceOptions reference;
};

// The options that shaped the samples, stored with the session (history shows what a trend was measured with).
std::string settings_json(const ProfileOptions& o, const ReferenceOptions& ref) {
  nlohmann::ordered_json j = timing_to_json(o.timing);
  j["layers"] = o.timing.layers;
  if (!o.timing.timed) j["timed"] = false;
  j["realtime"] = o.timing.realtime;
  j["repeat"] = o.repeat;
  j["threads"] = o.threads;
  if (!ref.model.empty()) {
    j["reference"] = std::filesystem::path(ref.model).filename().string();
    j["turns"] = ref.turns;
    j["turn_iterations"] = ref.turn_iterations;
  }
  return j.dump();
}

// --reference takes turns on live runners: flags that only mean something for fresh runners are refused.
void check_reference_flags(const CLI::App& cmd, const ReferenceOptions& ref) {
  if (ref.model.empty()) {
    for (const char* name : {"--turns", "--turn-iterations", "--chunks", "--chunk-iterations"})
      if (cmd.count(name) > 0) throw UsageError(std::string(name) + " sets the turns of --reference: give --reference REF.onnx");
    return;
  }
  for (const char* name : {"--repeat", "--realtime", "--sweep"})
    if (cmd.count(name) > 0)
      throw UsageError(std::string(name) + " does not go with --reference (one configuration, one fresh run, then "
                       "--turns turns beside the reference on live runners at normal priority)");
}

ProfileOptions to_options(const ProfileCommand& a) {
  ProfileOptions o = a.o;
  if (!a.backends.empty()) o.backends.clear();
  for (const auto& text : a.backends) {
    for (const auto& b : o.backends)
      if (b.text == text) throw UsageError("-B " + text + " is given twice; each backend configuration once");
    o.backends.push_back(parse_backend_spec(text));
  }
  if (!a.opt_level.empty())
    for (auto& b : o.backends) b.opt_level = a.opt_level;
  o.int8_check = parse_int8_check(a.int8_check);
  o.isa = hw::feature_names(hw::detect_features());
  if (!a.batches.empty()) o.batches = parse_int_list(a.batches, "-b");
  for (const auto& s : a.sweeps) o.sweeps.push_back(parse_sweep(s));
  o.shapes = a.shape.overrides();
  o.timeout = std::chrono::milliseconds(static_cast<int64_t>(a.timeout_s * 1000));
  for (const auto& in : a.inputs) {
    auto eq = in.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--input expects NAME=FILE (.pb or .npy), got '" + in + "'");
    o.input_files[in.substr(0, eq)] = in.substr(eq + 1);
  }
  return o;
}

int run_profile_command(const ProfileCommand& a) {
  ProfileOptions o = to_options(a);
  a.db.validate();
  std::vector<std::unique_ptr<Backend>> owned;
  std::vector<Backend*> backends;
  for (const auto& spec : o.backends) {
    owned.push_back(make_backend(spec));
    backends.push_back(owned.back().get());
  }
  const hw::RoofSource roof_from = roof_source(a.no_roofs, a.roofs, a.quiet, "profile");
  std::optional<HardwareInfo> roofs = hw::obtain_roofs(roof_from);
  ProgressBar bar("profile", !a.quiet);
  Report rep;
  {
    InterruptWatcher watcher("rooflens profile: interrupted — stopping and writing the partial report",
                             [&backends] {
                               for (Backend* b : backends) b->abort();
                             });
    ProfileHooks hooks;
    hooks.progress = [&bar](const std::string& what, size_t done, size_t total) { bar.update(what, done, total); };
    hooks.warn = [](const std::string& w) { std::cerr << "\nrooflens profile: warning: " << w << "\n"; };
    hooks.interrupted = &watcher.flag();
    hooks.recheck_roofs = hw::roof_recheck(roof_from);
    hooks.engine_roofs = hw::engine_roofs_source(roof_from);
    hooks.recheck_engine_roofs = hw::engine_roof_recheck(roof_from);
    rep = a.reference.model.empty() ? run_profile(o, backends, roofs ? &*roofs : nullptr, hooks)
                                    : run_profile_with_reference(o, a.reference, backends, roofs ? &*roofs : nullptr, hooks);
  }
  if (a.json) std::cout << report_to_json(rep);
  else std::cout << profile_summary(rep);
  if (!o.report_path.empty() && !a.quiet)
    std::cerr << "rooflens profile: report written to " << o.report_path << "\n";
  // The page is written once, at the end (failures and an interruption included): unlike the JSON it is not
  // rewritten after every configuration.
  if (!a.html.empty()) {
    write_file_atomically(a.html, html_report(rep, compare_backends(rep)));
    if (!a.quiet) std::cerr << "rooflens profile: HTML report written to " << a.html << "\n";
  }
  bool layers_lost = std::any_of(rep.runs.begin(), rep.runs.end(), [](const ProfileRun& r) { return !r.layers_error.empty(); });
  bool reference_lost = !a.reference.model.empty() &&
                        std::any_of(rep.runs.begin(), rep.runs.end(), [](const ProfileRun& r) { return !r.reference; });
  int rc = rep.failures.empty() && !rep.partial && !layers_lost && !reference_lost ? 0 : 1;
  // Files first, the database last: a database that is down never costs the report.
  if (rep.partial) return rc;  // an interrupted run is not history
  return worst_exit(rc, store_report(a.db, rep, "profile", a.quiet, settings_json(o, a.reference)));
}

}  // namespace

void setup_profile(CLI::App& root, Action& action) {
  auto a = std::make_shared<ProfileCommand>();
  CLI::App* cmd = root.add_subcommand("profile", "Run a model on a backend: e2e latency, per-layer times mapped to "
                                                 "your ONNX nodes, roofline position");
  cmd->footer(
      "Examples:\n"
      "  rooflens profile resnet50.onnx -o report.json --html report.html\n"
      "  rooflens profile resnet50.onnx -b 1-8 --threads 2\n"
      "  rooflens profile bert.onnx --dim seq=128 --sweep seq=64,128,256 -B onnxruntime:graphOptimizationLevel=extended\n"
      "  rooflens profile model.onnx --sweep threads=1,2 --no-layers --json\n"
      "  rooflens profile model.onnx --repeat 5 --duration 1 -o base.json   (for rooflens compare)\n"
      "  rooflens profile resnet50.onnx -B onnxruntime -B opencv -o both.json   (two runtimes, one report)\n"
      "  rooflens profile model.onnx --reference ref.onnx --no-layers --commit $SHA --db postgresql://ci@db/perf\n"
      "      (a CI gate: the model and a fixed reference take turns; history --check judges their ratio)\n"
      "Each configuration runs in fresh runners: a profiled inference session in one (the layers, and the memory\n"
      "prediction), then the model's inference session alone in another (warm-up, a timed run with profiling off,\n"
      "the measured memory).\n"
      "  rooflens profile model.onnx --layers-only   (the layers and the predicted memory, no timed run)\n"
      "--repeat N times each configuration N times, each in a fresh runner (round-robin over the grid), so\n"
      "`rooflens compare` can measure run-to-run variation instead of trusting the noise inside one run.\n"
      "Results are also stored in the results database (--db; default $XDG_DATA_HOME/rooflens/results.db) for\n"
      "`rooflens history`; exit code 3 when the report was written but the database could not take it.");
  cmd->add_option("model", a->o.model, "ONNX model file")->required()->check(CLI::ExistingFile);
  cmd->add_option("-B,--backend", a->backends,
                  "Backend and its options in the backend's spelling, repeatable (several: one report, runs "
                  "interleaved): onnxruntime[:key=value,...] (intraOpNumThreads, graphOptimizationLevel, "
                  "executionMode, enableCpuMemArena, session.* ...), opencv (when built with it). Default: "
                  "onnxruntime");
  cmd->add_option("-b,--batch", a->batches, "Batch sizes: 8, 1-64 (powers of two) or 1,8,32");
  a->shape.add_to(*cmd, false);
  cmd->add_option("--sweep", a->sweeps, "Sweep a dim: seq=128,256,512 or threads=1,2 (repeatable; combined as a grid)");
  cmd->add_option("--threads", a->o.threads, "Intra-op threads (default: -B threads=N, else one per physical core rooflens may use; always passed explicitly)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--opt-level", a->opt_level, "Graph optimization level, as each backend maps it")
      ->check(CLI::IsMember({"disabled", "basic", "extended", "layout", "all"}));
  cmd->add_option("--int8-check", a->int8_check,
                  "Compare an int8 (QDQ) model's outputs with a run at --opt-level disabled after each configuration: "
                  "auto (on x86 CPUs without VNNI, where u8s8 kernels can saturate), always, never "
                  "(docs/profile.md)")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  add_timing_flags(*cmd, a->o.timing);
  cmd->add_flag("--layers-only{false}", a->o.timing.timed,
                "Only the profiled inference session: the layers and the predicted memory, without the timed run (no "
                "end-to-end latency, no measured memory) — what a model will hold before its inference session is made")
      ->disable_flag_override()
      ->excludes("--no-layers");
  cmd->add_option("--repeat", a->o.repeat,
                  "Timed runs per configuration, each in a fresh runner, round-robin over the grid (5 for "
                  "rooflens compare)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--timeout", a->timeout_s, "Seconds allowed per stage of one configuration")
      ->check(CLI::Range(0.1, 864000.0))
      ->capture_default_str();
  cmd->add_option("--input", a->inputs, "Feed an input from a file: NAME=FILE (.pb TensorProto or .npy)");
  add_output_option(*cmd, a->o.report_path, "Write the JSON report here (rewritten after every configuration)", "report");
  cmd->add_option("--html", a->html, "Also write the report as one self-contained HTML page (as rooflens report does)");
  cmd->add_option("--roofs", a->roofs, "Ceilings from this file instead of this machine's measured ones");
  cmd->add_flag("--no-roofs", a->no_roofs, "Do not place layers on a roofline (no hw measurement)");
  cmd->add_flag("--json", a->json, "Print the JSON report on stdout instead of the summary");
  cmd->add_flag("--realtime", a->o.timing.realtime,
                "Run the runner at real-time priority with its threads pinned, one per CPU, so other processes of a "
                "busy machine cannot take its CPUs (needs root or CAP_SYS_NICE; see docs/history.md)");
  cmd->add_option("--reference", a->reference.model,
                  "Time a fixed reference model in turns with this one (after one fresh run each, --turns turns on "
                  "two live runners) and store the ratio: history --check then judges the ratio, which the "
                  "machine's speed of the day does not move (docs/history.md, \"A CI gate\")")
      ->check(CLI::ExistingFile);
  cmd->add_option("--turns", a->reference.turns, "With --reference: turns per side after the first run")
      ->check(CLI::Range(2, 100000))
      ->capture_default_str();
  cmd->add_option("--turn-iterations", a->reference.turn_iterations,
                  "With --reference: measured iterations per turn")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  // The former names of --turns and --turn-iterations, still read, not shown.
  cmd->add_option("--chunks", a->reference.turns)->check(CLI::Range(2, 100000))->group("");
  cmd->add_option("--chunk-iterations", a->reference.turn_iterations)->check(CLI::Range(1, 100000))->group("");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
  a->db.add_to(*cmd);
  cmd->callback([a, cmd, &action] {
    action = [a, cmd] {
      check_reference_flags(*cmd, a->reference);
      return run_profile_command(*a);
    };
  });
}

}  // namespace rooflens::cli
