// `rooflens compare BASE NEW`: what got slower, faster, broken or fixed between two profile (or generation) reports
// or two bench results directories, with a significance test on the repeated runs (or, for single runs, their raw samples).
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "backends/registry/registry.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/progress.h"
#include "cli/roofs.h"
#include "cli/shape_flags.h"
#include "compare/compare.h"
#include "compare/sources.h"
#include "core/errors.h"
#include "core/atomic_file.h"
#include "profile/measure_pair.h"
#include "profile/turns.h"
#include "reporters/compare_report.h"
#include "reporters/report_text.h"

namespace rooflens::cli {
namespace {

// Measuring two models (BASE.onnx NEW.onnx, profile/measure_pair.h): profile's timing flags, with a gate's defaults.
struct MeasureFlags {
  // One backend for two models; two (-B A -B B) for one model on two runtimes. Empty: onnxruntime.
  std::vector<std::string> backends;
  std::string batches;
  ShapeFlags shape;
  int threads = 0, warmup = 1, iterations = 10, profile_iterations = 10, repeat = 10;
  std::string interleave = "turns";  // turns | runs ("chunks": the former name of turns)
  int turns = 100, turn_iterations = 10;
  double warmup_ms = 300, duration_s = 0.5, timeout_s = 900;
  bool no_layers = false, realtime = false, quiet = false;
  std::string reports;  // --reports DIR: keep base.json and new.json there
};

struct CompareArgs {
  std::string base, head, threshold = "5%", format = "table", output = "-";
  double alpha = 0.05;
  bool fail_on_regression = false, json = false;
  CompareView view;
  MeasureFlags measure;  // BASE and NEW are .onnx models: compare measures them (profile/measure_pair.h)
  std::vector<const CLI::Option*> measure_options;  // given with reports: a usage error
};

bool is_model(const std::string& path) {
  auto dot = path.rfind('.');
  if (dot == std::string::npos) return false;
  std::string ext = path.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".onnx";
}

// A flag as given, the hidden former names included (CLI11's get_name() is empty for a hidden option).
std::string flag_name(const CLI::Option* o) {
  return o->get_lnames().empty() ? "-" + o->get_snames().front() : "--" + o->get_lnames().front();
}

// --interleave turns (or its former name, chunks) against runs.
bool in_turns(const MeasureFlags& f) { return f.interleave == "turns" || f.interleave == "chunks"; }

ProfileOptions options_for(const std::string& model, const std::string& backend, const MeasureFlags& f) {
  ProfileOptions o;
  o.model = model;
  o.backends = {parse_backend_spec(backend)};
  if (!f.batches.empty()) o.batches = parse_int_list(f.batches, "-b");
  o.shapes = f.shape.overrides();
  o.threads = f.threads;
  o.timing.warmup_iterations = f.warmup;
  o.timing.warmup_ms = f.warmup_ms;
  o.timing.iterations = f.iterations;
  o.timing.duration_s = f.duration_s;
  o.timing.profile_iterations = f.profile_iterations;
  o.timing.layers = !f.no_layers;
  o.timing.realtime = f.realtime;
  o.repeat = f.repeat;
  if (in_turns(f)) use_turns(o, f.turns, f.turn_iterations);
  o.timeout = std::chrono::milliseconds(static_cast<int64_t>(f.timeout_s * 1000));
  return o;
}

// BASE and NEW measured in turns, with a progress bar and Ctrl-C; --reports keeps both reports. Two models share
// one backend; one model on two runtimes has a backend per side.
MeasuredPair measure_models(const std::string& base_model, const std::string& new_model, const MeasureFlags& f) {
  const std::string base_backend = f.backends.empty() ? "onnxruntime" : f.backends.front();
  const std::string new_backend = f.backends.size() > 1 ? f.backends[1] : base_backend;
  const ProfileOptions ob = options_for(base_model, base_backend, f), on = options_for(new_model, new_backend, f);
  std::unique_ptr<Backend> bb = make_backend(ob.backends.front());
  std::unique_ptr<Backend> nb = f.backends.size() > 1 ? make_backend(on.backends.front()) : nullptr;
  Backend& b = *bb;
  Backend& n = nb ? *nb : b;
  ProgressBar bar("compare", !f.quiet);
  InterruptWatcher watcher("rooflens compare: interrupted — stopping", [&b, &n] {
    b.abort();
    n.abort();
  });
  ProfileHooks hooks;
  hooks.progress = [&bar](const std::string& what, size_t done, size_t total) { bar.update(what, done, total); };
  hooks.interrupted = &watcher.flag();
  // One model on two runtimes: each side's layers on the roofs of what it ran in (the CPU's, WebAssembly's), so the
  // comparison can say which losses a lower ceiling explains (compare/why_slower.h). Two models: time alone.
  std::optional<HardwareInfo> roofs;
  if (nb) {
    const hw::RoofSource from = roof_source(false, "", f.quiet, "compare");
    roofs = hw::obtain_roofs(from);
    hooks.engine_roofs = hw::engine_roofs_source(from);
    hooks.recheck_roofs = hw::roof_recheck(from);
    hooks.recheck_engine_roofs = hw::engine_roof_recheck(from);
  }
  MeasuredPair out = measure_pair(ob, on, b, n, hooks, roofs ? &*roofs : nullptr);
  if (!f.reports.empty()) {
    std::filesystem::create_directories(f.reports);
    write_file_atomically((std::filesystem::path(f.reports) / "base.json").string(), report_to_json(out.base));
    write_file_atomically((std::filesystem::path(f.reports) / "new.json").string(), report_to_json(out.head));
  }
  return out;
}

// One stderr line saying why the run fails the check (the report itself went to stdout or -o).
std::string check_failure_line(const VerdictCounts& n, double threshold) {
  std::string what;
  if (n.regressions)
    what += std::to_string(n.regressions) + (n.regressions == 1 ? " significant regression" : " significant regressions") +
            " beyond " + percent(threshold);
  if (n.new_failures)
    what += (what.empty() ? "" : " and ") + std::to_string(n.new_failures) +
            (n.new_failures == 1 ? " new failure" : " new failures");
  return "rooflens: compare: " + what + " (--fail-on-regression)\n";
}

// `compare model.onnx -B A -B B`: one model, NEW is BASE on the second runtime. Two models take one -B at most.
void check_models_and_backends(const std::string& base, std::string& head, const MeasureFlags& f) {
  if (f.backends.size() > 2)
    throw UsageError("-B given " + std::to_string(f.backends.size()) + " times: compare takes two runtimes at most "
                     "(one model: -B onnxruntime -B ortweb)");
  if (head.empty()) {
    if (!is_model(base) || f.backends.size() != 2)
      throw UsageError("compare takes BASE and NEW, or one model (.onnx) and two runtimes: compare " + base +
                       " -B onnxruntime -B ortweb");
    head = base;
    return;
  }
  if (f.backends.size() == 2)
    throw UsageError("-B given twice with two models: two runtimes compare one model (compare model.onnx -B A -B B); "
                     "two models share one -B");
}

int run_compare(const CompareArgs& args) {
  CompareArgs a = args;
  check_models_and_backends(a.base, a.head, a.measure);
  CompareOptions o;
  o.threshold = parse_threshold(a.threshold);
  o.alpha = a.alpha;
  const bool models = is_model(a.base) && is_model(a.head);
  o.paired = models;  // measure_pair runs BASE and NEW in adjacent pairs
  if (is_model(a.base) != is_model(a.head))
    throw UsageError("compare takes two models (.onnx: measured here, interleaved), two profile reports or two bench "
                     "results; got " + a.base + " and " + a.head);
  if (!models)
    for (const CLI::Option* opt : a.measure_options)
      if (opt->count() > 0)
        throw UsageError(flag_name(opt) + " measures models: it needs BASE and NEW to be .onnx files");
  if (!in_turns(a.measure) && a.measure.interleave != "runs")
    throw UsageError("--interleave " + a.measure.interleave + ": give turns (the default) or runs");
  // Turns are taken on live runners at normal priority; --repeat counts fresh runners: both belong to runs.
  if (in_turns(a.measure))
    for (const CLI::Option* opt : a.measure_options)
      if (opt->count() > 0 && (flag_name(opt) == "--repeat" || flag_name(opt) == "--realtime"))
        throw UsageError(flag_name(opt) + " times fresh runners: add --interleave runs (the default, turns, "
                         "alternates two live runners; --turns sets how many)");
  CompareSource base, head;
  if (models) {
    MeasuredPair pair = measure_models(a.base, a.head, a.measure);
    base = source_from_report(pair.base, a.base);
    head = source_from_report(pair.head, a.head);
  } else {
    base = load_compare_source(a.base);
    head = load_compare_source(a.head);
  }
  Comparison c = compare_sources(base, head, o);
  std::string text = compare_formats().at(a.json ? "json" : a.format)(c, a.view);
  if (a.output == "-") std::cout << text << std::flush;
  else write_file_atomically(a.output, text);
  VerdictCounts counts = count_verdicts(c);
  if (a.fail_on_regression && fails_check(counts)) {
    std::fputs(check_failure_line(counts, o.threshold).c_str(), stderr);
    return 1;
  }
  return 0;
}

}  // namespace

void setup_compare(CLI::App& root, Action& action) {
  auto a = std::make_shared<CompareArgs>();
  CLI::App* cmd = root.add_subcommand("compare", "Compare two profile or generation reports, or two bench results: "
                                                 "latency changes tested for significance, per-layer deltas, new and "
                                                 "fixed failures");
  cmd->add_option("base", a->base, "BASE: a profile report (rooflens profile -f), a generation report (rooflens "
                                   "generate -f), a bench results directory (or its results.json), or a model "
                                   "(.onnx) to measure against NEW")
      ->required();
  cmd->add_option("new", a->head, "NEW: the same kind as BASE (left out: one model on the two runtimes of -B A -B B)");
  cmd->add_option("--threshold", a->threshold, "Smallest median change that counts as a regression or improvement: "
                                               "5% or 0.05 (default 5%)");
  cmd->add_option("--alpha", a->alpha, "Significance level of the test; the interval is the (1 - alpha) one "
                                       "(default 0.05)")
      ->check(CLI::Range(0.0001, 0.5));
  cmd->add_flag("--fail-on-regression", a->fail_on_regression,
                "Exit 1 when an item got significantly slower by more than --threshold, or fails in NEW but did not "
                "fail in BASE");
  std::vector<std::string> formats;
  for (const auto& kv : compare_formats()) formats.push_back(kv.first);
  cmd->add_option("--format", a->format, "table | md | csv | json (default table)")->check(CLI::IsMember(formats));
  cmd->add_flag("--json", a->json, "Same as --format json");
  cmd->add_option("--top-layers", a->view.top_layers, "table/md: layer deltas shown per configuration, largest "
                                                      "first (default 10; 0 = none)");
  cmd->add_option("-o,--output", a->output, "Write to FILE (default: stdout)");
  // Measuring two models (BASE.onnx NEW.onnx): profile's timing flags, with a gate's defaults.
  MeasureFlags& m = a->measure;
  auto& mo = a->measure_options;
  mo.push_back(cmd->add_option("-B,--backend", m.backends, "Models: backend and its options, as for profile; "
                                                            "twice with one model: BASE on the first, NEW on the "
                                                            "second runtime"));
  mo.push_back(cmd->add_option("-b,--batch", m.batches, "Models: batch sizes, as for profile"));
  mo.push_back(cmd->add_option("--threads", m.threads, "Models: intra-op threads (default: one per physical core rooflens may use, passed explicitly)")->check(CLI::Range(1, 4096)));
  mo.push_back(cmd->add_option("--interleave", m.interleave, "Models: turns (default: one fresh run per side, then "
                                                           "--turns turns on two live runners) | runs (--repeat "
                                                           "fresh runners per side)"));
  mo.push_back(cmd->add_option("--turns", m.turns, "Models, turns: turns per side after the first run (default 100)")
                   ->check(CLI::Range(2, 100000)));
  mo.push_back(cmd->add_option("--turn-iterations", m.turn_iterations, "Models, turns: measured iterations per "
                                                                       "turn (default 10)")
                   ->check(CLI::Range(1, 1000000)));
  // The former names of --turns and --turn-iterations (and of --interleave turns: chunks), still read, not shown.
  mo.push_back(cmd->add_option("--chunks", m.turns)->check(CLI::Range(2, 100000))->group(""));
  mo.push_back(cmd->add_option("--chunk-iterations", m.turn_iterations)->check(CLI::Range(1, 1000000))->group(""));
  mo.push_back(cmd->add_option("--repeat", m.repeat, "Models, runs: runs per side, interleaved ABBA, each a fresh "
                                                     "runner (default 10)")->check(CLI::Range(2, 1000)));
  mo.push_back(cmd->add_option("--duration", m.duration_s, "Models: measured seconds per run (default 0.5)")
                   ->check(CLI::Range(0.0, 86400.0)));
  mo.push_back(cmd->add_option("--warmup-ms", m.warmup_ms, "Models: warm-up per run in ms (default 300)")
                   ->check(CLI::Range(0.0, 3.6e6)));
  mo.push_back(cmd->add_option("--iterations", m.iterations, "Models: measured iterations per run, at least (default 10)")
                   ->check(CLI::Range(1, 10000000)));
  mo.push_back(cmd->add_flag("--realtime", m.realtime, "Models, runs: runners at real-time priority, threads "
                                                       "pinned (as profile --realtime)"));
  mo.push_back(cmd->add_flag("--no-layers", m.no_layers, "Models: no profiled run (no layer deltas)"));
  mo.push_back(cmd->add_option("--reports", m.reports, "Models: keep both profile reports in DIR (base.json, new.json)"));
  mo.push_back(cmd->add_flag("-q,--quiet", m.quiet, "Models: no progress on stderr"));
  cmd->footer(
      "Items are matched by model x configuration. Where both sides passed and were timed in 2+ runs each\n"
      "(profile/bench --repeat N), the runs are compared: Welch's t-test on the logs of the run medians gives p\n"
      "and the interval of the ratio. With one run on a side, that run's raw samples are: Mann-Whitney U\n"
      "(two-sided) and a seeded bootstrap interval of the median ratio NEW/BASE (with 50+ samples on both sides,\n"
      "on blocks of consecutive samples), and the output warns that run-to-run variation was not measured.\n"
      "Verdicts:\n"
      "  regression / improvement  p < alpha, the interval excludes 1, and the median changed by more than\n"
      "                            --threshold (slower / faster); a speed-up is never a regression\n"
      "  below threshold           significant, but the change is within --threshold\n"
      "  within noise              not significant\n"
      "  insufficient samples      fewer than 3 samples on a side, or too few for any test to reach p < alpha\n"
      "  new failure / fixed       fails in NEW but not in BASE / failed in BASE, passes in NEW\n"
      "Layers (profile reports) are matched by the ONNX nodes they compute; their times are medians without\n"
      "raw samples, so layer deltas carry no significance test.\n"
      "Generation reports: each configuration is two items, '<config> · TTFT' (one sample per request; layers\n"
      "of the prefill step) and '<config> · TPOT' (one sample per decode step; layers of the decode step).\n"
      "Exit codes: 0 ok; 1 unreadable input, or --fail-on-regression with a regression or a new failure;\n"
      "2 usage (bad flags, BASE and NEW of different kinds).\n"
      "BASE and NEW may be two models (.onnx): compare then measures them itself, interleaved (BASE, NEW, NEW,\n"
      "BASE, ...) and tests them pair by pair, so a busy machine slows both sides alike instead of deciding the\n"
      "verdict. Default (--interleave turns): one 0.5 s run per side in a fresh runner (layers from it), then\n"
      "both models stay loaded in a live runner each (ORT: intra-op spinning off, so the idle side leaves the CPUs\n"
      "alone) and take 100 turns of 10 iterations. --interleave runs: --repeat fresh runners per side (default\n"
      "10 x 0.5 s); --realtime pins them at real-time priority.\n"
      "Examples:\n"
      "  rooflens compare model-main.onnx model-pr.onnx --fail-on-regression   (measures both, interleaved)\n"
      "  rooflens compare a.onnx b.onnx --interleave runs --repeat 20 --realtime\n"
      "  rooflens compare model.onnx -B onnxruntime -B ortweb   (one model, native vs WebAssembly, per layer)\n"
      "  rooflens profile model.onnx --repeat 5 -o base.json   (later, after the change: -o new.json)\n"
      "  rooflens compare base.json new.json\n"
      "  rooflens compare gen-base.json gen-new.json   (rooflens generate ... --repeat 5 -o gen-base.json)\n"
      "  rooflens compare results-main/ results-pr/ --threshold 3% --fail-on-regression\n"
      "  rooflens compare base.json new.json --format md -o comment.md\n"
      "  rooflens compare base.json new.json --json | jq '.items[] | select(.verdict == \"regression\")'");
  cmd->callback([a, &action] { action = [a] { return run_compare(*a); }; });
}

}  // namespace rooflens::cli
