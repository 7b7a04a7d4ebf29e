// `rooflens bench`: run a zoo of models (ONNX test-layout folders, .onnx files, JSON model lists) on one or more
// backend configurations — validate outputs against test data, benchmark latency — with crash isolation, a
// results folder written as it goes, --resume, and a closing table.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/registry/registry.h"
#include "cli/commands.h"
#include "cli/db_flags.h"
#include "cli/fleet_flags.h"
#include "cli/interrupt.h"
#include "cli/progress.h"
#include "cli/timing_flags.h"
#include "core/errors.h"
#include "hw/cpu_features.h"
#include "hw/machine.h"
#include "reporters/bench_summary.h"
#include "bench/model_source.h"
#include "bench/results_csv.h"
#include "bench/results_dir.h"
#include "bench/shard.h"
#include "bench/scheduler.h"
#include "core/build_info.h"

namespace rooflens::cli {
namespace cmd_bench_file {  // this file's helpers and using-directive stay its own in a unity batch
namespace {

namespace fs = std::filesystem;
using namespace rooflens::bench;

struct BenchArgs {
  std::vector<std::string> sources, backends;
  std::string mode = "benchmark", output = "bench-results", filter, shard;
  double rtol = 1e-3, atol = 1e-7, percent_mismatch = 0, timeout_s = 120;
  int workers = 0, top = 10, repeat = 1;
  TimingOptions timing = TimingOptions::bench();  // the flags bind to it directly
  bool resume = false, overwrite = false, quiet = false, json = false, list = false;
  DbFlags db;
  FleetFlags fleet;
};

// The options that shaped the samples, stored with the session.
std::string bench_settings_json(const BenchArgs& a) {
  nlohmann::ordered_json j = timing_to_json(a.timing);
  j["mode"] = a.mode;
  j["repeat"] = a.repeat;
  j["shard"] = a.shard;
  return j.dump();
}

BenchPlan plan_of(const BenchArgs& a) {
  BenchPlan p;
  p.mode = a.mode;
  p.tolerance = {a.rtol, a.atol, a.percent_mismatch};
  p.timeout = std::chrono::milliseconds(static_cast<int64_t>(a.timeout_s * 1000));
  // One worker per CPU, at most 8: beyond that, their runners (each ~80 MB) cost memory and buy little on tiny models.
  p.workers_asked = a.workers > 0 ? a.workers : static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  p.timing = a.timing;
  p.repeat = a.repeat;
  return p;
}

BenchOptionsUsed options_used(const BenchArgs& a, const BenchPlan& p) {
  BenchOptionsUsed o;
  o.mode = a.mode;
  o.rtol = a.rtol;
  o.atol = a.atol;
  o.percent_mismatch = a.percent_mismatch;
  o.timeout_s = a.timeout_s;
  for (const auto& s : a.sources) o.sources.push_back(fs::absolute(s).lexically_normal().string());
  o.filter = a.filter;
  if (p.benchmarks()) {  // timing options only matter (and only have to match on --resume) when timing
    o.warmup_iterations = a.timing.warmup_iterations;
    o.warmup_ms = a.timing.warmup_ms;
    o.iterations = a.timing.iterations;
    o.duration_s = a.timing.duration_s;
    o.profile_iterations = a.timing.layers ? a.timing.profile_iterations : 0;
    o.max_iterations = a.timing.max_iterations;
  }
  o.repeat = a.repeat;
  o.shard = a.shard.empty() || parse_shard(a.shard).all() ? "" : parse_shard(a.shard).text();
  return o;
}

struct Configs {
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<ConfigSlot> slots;
  std::vector<BenchConfig> described;
};

Configs make_configs(const std::vector<std::string>& specs) {
  Configs c;
  for (const auto& text : specs) {
    for (const auto& s : c.slots)
      if (s.label == text) throw UsageError("-B " + text + " is given twice; each configuration once");
    c.backends.push_back(make_backend(parse_backend_spec(text)));
    c.slots.push_back({text, c.backends.back().get()});
    c.described.push_back({text, c.backends.back()->info()});
  }
  return c;
}

std::string progress_text(const BenchProgress& p) {
  std::string s = fmt::format("{} pass {} fail", p.pass, p.fail);
  if (p.timeout) s += fmt::format(" {} timeout", p.timeout);
  if (p.crash) s += fmt::format(" {} crash", p.crash);
  if (p.skip) s += fmt::format(" {} skip", p.skip);
  if (!p.last.empty()) s += " · " + p.last;
  return s;
}

int run_bench_command(const BenchArgs& a) {
  if (a.repeat > 1 && a.mode == "validate")
    throw UsageError("--repeat " + std::to_string(a.repeat) + " repeats timed runs; --mode validate times nothing "
                     "(use --mode benchmark or both)");
  BenchPlan plan = plan_of(a);
  const Shard shard = a.shard.empty() ? Shard{} : parse_shard(a.shard);
  if (!a.list) a.db.validate();
  DiscoveryOptions d;
  d.filter = a.filter;
  d.test_hooks = test_hooks_enabled_by_env();
  Discovery found = discover_models(a.sources, d);
  const size_t discovered = found.models.size();
  found.models = take_shard(found.models, shard);
  if (a.list) {  // the models this run (this shard) would take, one per line: nothing runs, nothing is written
    for (const auto& m : found.models) std::cout << m.name << "\n";
    return 0;
  }
  if (found.models.empty() && discovered > 0) {  // a CI matrix wider than a small zoo: not a failure
    if (!a.quiet)
      std::cerr << "rooflens bench: shard " << shard.text() << " holds none of the " << discovered
                << " models found; nothing to do\n";
    return 0;
  }
  if (!a.quiet && !shard.all())
    std::cerr << fmt::format("rooflens bench: shard {}: {} of {} models\n", shard.text(), found.models.size(), discovered);
  for (const auto& m : found.models)
    if (!m.test_hook.empty()) plan.test_faults[m.name] = m.test_hook;
  if (!a.quiet)
    for (const auto& n : found.notes) std::cerr << "rooflens bench: note: " << n << "\n";
  if (found.models.empty())
    throw UserError("no models found in " + fmt::format("{}", fmt::join(a.sources, ", ")) +
                    (a.filter.empty() ? "" : " matching --filter '" + a.filter + "'") +
                    " (a SOURCE is a folder in the ONNX test layout, a .onnx file or a .json model list)");

  Configs configs = make_configs(a.backends.empty() ? std::vector<std::string>{"onnxruntime"} : a.backends);
  BenchResults header;
  header.tool = tool_info("bench");
  header.options = options_used(a, plan);
  header.system = hw::describe_machine(hw::detect_features());
  plan.isa = header.system->isa;
  header.configs = configs.described;
  ResultsDir results(a.output, header,
                     a.overwrite ? OpenMode::overwrite : a.resume ? OpenMode::resume : OpenMode::fresh);

  ProgressBar bar("bench", !a.quiet, std::chrono::seconds(5));
  SuiteScheduler scheduler(found.models, configs.slots, plan,
                     [&results](const BenchEntry& e, int64_t round) { results.record(e, round); },
                     [&bar](const BenchProgress& p) { bar.update(progress_text(p), p.done, p.total); });
  const EntryProgressMap earlier = results.progress();
  if (!a.quiet) {
    std::cerr << fmt::format("rooflens bench: {} models × {} configuration{}{}, {} mode, {} worker{}, results in {}/\n",
                             found.models.size(), configs.slots.size(), configs.slots.size() == 1 ? "" : "s",
                             a.repeat > 1 ? fmt::format(" × {} rounds", a.repeat) : "", a.mode, plan.workers(),
                             plan.workers() == 1 ? "" : "s", a.output);
    if (results.earlier_count() + results.earlier_unfinished() > 0)
      std::cerr << fmt::format("rooflens bench: resuming: {} entries finished earlier{}, {} {}to go\n",
                               results.earlier_count(),
                               results.earlier_unfinished()
                                   ? fmt::format(" and {} partly (rounds to go)", results.earlier_unfinished())
                                   : "",
                               scheduler.pending(earlier), a.repeat > 1 ? "runs " : "");
    if (plan.benchmarks() && a.workers > 1)
      std::cerr << "rooflens bench: note: benchmark timings run one at a time; -j applies to --mode validate\n";
  }
  {
    InterruptWatcher watcher("rooflens bench: interrupted — stopping; finished entries are in " + a.output +
                                 "/ (--resume continues)",
                             [&scheduler] { scheduler.stop(); });
    scheduler.run(earlier);
  }
  const bool partial = scheduler.stopped();
  results.finish(partial);
  BenchResults r = results.snapshot();
  if (a.json) {
    std::cout << bench_results_to_json(r);
  } else {
    BenchSummaryOptions so;
    so.top = static_cast<size_t>(a.top);
    so.elapsed_s = bar.elapsed_s();
    so.workers = plan.workers();
    so.resumed = results.earlier_count();
    std::cout << bench_summary(r, so);
  }
  if (!a.quiet) std::cerr << "rooflens bench: results in " << a.output << "/ (results.json, status.csv, failures.csv, ...)\n";
  bool failures = false;
  for (const auto& e : r.entries) failures |= is_failure(e.status);
  if (partial) return 1;  // an interrupted run is not history (--resume finishes it, then it is stored)
  // The results folder first, the database last: a database that is down never costs the results.
  return worst_exit(failures ? 1 : 0, store_bench(a.db, r, "bench", a.quiet, bench_settings_json(a)));
}

}  // namespace
}  // namespace cmd_bench_file

void setup_bench(CLI::App& root, Action& action) {
  using namespace cmd_bench_file;
  auto a = std::make_shared<BenchArgs>();
  CLI::App* cmd = root.add_subcommand("bench", "Validate and benchmark a zoo of models (ONNX test folders, .onnx "
                                               "files, model lists) with crash isolation and resumable results");
  cmd->footer(
      "Examples:\n"
      "  rooflens bench /usr/share/libonnx-testdata/data/node --mode validate\n"
      "  rooflens bench models/ -B onnxruntime:opt=all -B onnxruntime:opt=disabled --mode both -o results/\n"
      "  rooflens bench models.json --filter 'resnet|bert' --timeout 60 --resume -o results/\n"
      "  rooflens bench models/ --repeat 5 -o results-main/   (then rooflens compare results-main/ results-pr/)\n"
      "Each model ends pass, fail (stage load|run|validate), timeout, crash or skip, with a reason; a crash or hang\n"
      "costs one runner restart, never the run. Results (status.csv, failures.csv, latency.csv, metrics.csv,\n"
      "system.csv, results.json) are written as models finish; Ctrl-C or a kill keeps them, --resume continues.\n"
      "  rooflens bench zoo/ --shard 2/4 --db postgresql://ci@db/perf   (machine 2 of 4; rooflens history reads all)\n"
      "  rooflens bench zoo/ --slurm 4 --slurm-opt \"--partition=cpu\" --db postgresql://ci@db/perf   (a Slurm array)\n"
      "Exit code 1 when any model failed, timed out or crashed, or the run was interrupted; 3 when the results\n"
      "folder was written but the results database (--db) could not take the results.");
  cmd->add_option("sources", a->sources, "Folders in the ONNX test layout (searched recursively), .onnx files, "
                                         ".json model lists")
      ->required();
  cmd->add_option("-B,--backend", a->backends,
                  "A configuration: onnxruntime[:key=value,...] or opencv[:fusion=false] (repeatable; the text is its "
                  "label). Default: onnxruntime with ORT's defaults");
  cmd->add_option("--mode", a->mode, "benchmark (latency, metrics), validate (outputs vs test data) or both")
      ->check(CLI::IsMember({"benchmark", "validate", "both"}));
  cmd->add_option("--rtol", a->rtol, "Relative tolerance (default 1e-3)")->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--atol", a->atol, "Absolute tolerance (default 1e-7)")->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--percent-mismatch", a->percent_mismatch,
                  "Percentage of an output's elements allowed to differ (default 0)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--timeout", a->timeout_s, "Seconds allowed per step of one model (load, run, ...; default 120)")
      ->check(CLI::Range(0.1, 864000.0));
  cmd->add_option("-o,--output", a->output, "Results folder (default bench-results)");
  CLI::Option* resume =
      cmd->add_flag("--resume", a->resume, "Continue the run in the results folder: skip what finished");
  cmd->add_flag("--overwrite", a->overwrite, "Replace the results of an earlier run in the results folder")
      ->excludes(resume);
  cmd->add_option("--filter", a->filter, "Only models whose name matches this regular expression");
  cmd->add_option("-j,--jobs", a->workers, "Parallel workers in validate mode, each with its own runner (default: one per CPU, at most 8)")
      ->check(CLI::Range(1, 256));
  TimingFlagStyle timing;
  timing.prefix = "Benchmark: ";
  timing.no_layers = "--no-metrics";
  timing.no_layers_help = "skip the profiled run (no metrics.csv rows)";
  timing.adaptive = false;
  add_timing_flags(*cmd, a->timing, timing);
  cmd->add_option("--repeat", a->repeat,
                  "Benchmark: rounds over the whole zoo, timing each model × configuration once per round in a fresh "
                  "runner (default 1; 3-5 let rooflens compare measure run-to-run variation)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--top", a->top, "Slowest models shown (default 10)")->check(CLI::Range(0, 100000));
  cmd->add_flag("--json", a->json, "Print results.json (rooflens.bench/1) on stdout instead of the table");
  cmd->add_option("--shard", a->shard,
                  "Run part I of N (1/4 .. 4/4): a model's part depends on its name only, so N machines given the "
                  "same SOURCEs run every model exactly once");
  cmd->add_flag("--list", a->list, "Print the models this run (this --shard) would take, one per line, and exit");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
  a->db.add_to(*cmd);
  a->fleet.add_to(*cmd);
  cmd->callback([a, cmd, &action] {
    action = [a, cmd] {
      if (!a->fleet.active()) return run_bench_command(*a);
      if (!a->shard.empty() || a->list || a->resume)
        throw UsageError("--shard, --list and --resume are for one machine; with --slurm every task takes its own shard");
      return run_fleet(a->fleet, *cmd, a->db, FleetShape{"bench", true, {}, {}});
    };
  });
}

}  // namespace rooflens::cli
