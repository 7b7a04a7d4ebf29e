#include "score/run_suite.h"

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "score/arithmetic.h"
#include "score/harness.h"
#include "score/kind.h"
#include "score/references.h"
#include "stats/order.h"

namespace rooflens::score {
namespace {

constexpr const char* kFp16Reason =
    "fp16 is not run: ONNX Runtime's CPU execution provider runs an fp16 Conv/MatMul model in fp32 behind Cast nodes "
    "it inserts (docs/score.md), and rooflens never converts a precision silently";

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

bool stopped(const ScoreContext& ctx) { return ctx.interrupted && ctx.interrupted->load(); }

// Warnings about the constants (harness_warning) start so, and are replaced when a result is scored again.
constexpr const char* kConstantsWarning = "constants: ";

KindContext kind_context(const ScoreContext& ctx, const ModeSettings& mode, const Tolerance* tol) {
  KindContext k;
  k.backend = ctx.backend;
  k.reference_backend = ctx.reference_backend;
  k.roofs = ctx.roofs;
  k.cores = ctx.cores;
  k.work_dir = ctx.work_dir;
  k.mode = &mode;
  k.tolerance = tol;
  k.interrupted = ctx.interrupted;
  k.progress = ctx.progress;
  return k;
}

// A workload that is INVALID or failed still names the figures it would have had, without repetitions: its
// categories then count it as a member, so they are marked incomplete.
void add_missing_figures(const WorkloadDef& def, bool quick, ScoreWorkload& w) {
  if (w.status == WorkloadStatus::unsupported) return;
  for (const auto& m : metrics_of(def)) {
    if (std::any_of(w.figures.begin(), w.figures.end(), [&](const ScoreFigure& f) { return f.metric == m; })) continue;
    w.figures.push_back(figure_of(def, m, quick));
  }
}

void set_constants_warning(ScoreResult& r, const Suite& suite) {
  std::erase_if(r.warnings, [](const std::string& w) { return w.starts_with(kConstantsWarning); });
  if (r.kind != "measured") return;
  if (auto w = harness_warning(suite, r.quick, r.harness)) r.warnings.push_back(kConstantsWarning + *w);
}

// A run of --workloads (its warning says so): not the suite's score.
bool subset_run(const ScoreResult& r) {
  return std::any_of(r.warnings.begin(), r.warnings.end(),
                     [](const std::string& s) { return s.find("--workloads") != std::string::npos; });
}

// The mode's settings with the options' overrides: what the run measures with (and its harness names).
ModeSettings mode_of(const Suite& suite, const ScoreOptions& o) {
  ModeSettings mode = suite.mode(o.quick);
  if (o.repetitions > 0) mode.repetitions = o.repetitions;
  if (o.offline_seconds >= 0) mode.offline_seconds = o.offline_seconds;
  return mode;
}

ScoreWorkload run_one(const WorkloadDef& def, const ScoreOptions& o, const Suite& suite, const ModeSettings& mode,
                      const ScoreContext& ctx) {
  ScoreWorkload w;
  w.id = def.id;
  w.model = def.model;
  w.precision = def.precision;
  const auto start = std::chrono::steady_clock::now();
  if (def.precision == "fp16") {
    w.status = WorkloadStatus::unsupported;
    w.reason = kFp16Reason;
    return w;
  }
  const Tolerance& tol = suite.tolerances.at(def.precision);
  w.tolerance = tolerance_text(tol);
  std::filesystem::path model;
  try {
    if (ctx.progress) ctx.progress(def.id + " · building the model (zoo, seed " + std::to_string(def.seed) + ")");
    model = build_model(def, ctx.work_dir / "models");
    KindContext k = kind_context(ctx, mode, &tol);
    k.quick = o.quick;
    k.validate_only = o.validate_only;
    if (ctx.test_hooks) k.test_hook = def.test_hook;
    kind_of(def.kind).run(def, model, k, w);
  } catch (const std::exception& e) {
    w.status = WorkloadStatus::failed;
    w.reason = stopped(ctx) ? "interrupted (Ctrl-C)" : one_line(e.what());
    w.figures.clear();  // no figure from a workload that did not finish
  }
  if (!o.validate_only) add_missing_figures(def, o.quick, w);
  std::error_code ec;
  if (!model.empty()) std::filesystem::remove(model, ec);  // hundreds of MB each
  w.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return w;
}

}  // namespace

std::vector<const WorkloadDef*> selected(const Suite& suite, const ScoreOptions& o) {
  for (const auto& id : o.workloads)
    if (std::none_of(suite.workloads.begin(), suite.workloads.end(), [&](const WorkloadDef& w) { return w.id == id; })) {
      std::string known;
      for (const auto& w : suite.workloads) known += (known.empty() ? "" : ", ") + w.id;
      throw UsageError("--workloads: suite " + suite.version + " has no workload '" + id + "' (known: " + known + ")");
    }
  std::vector<const WorkloadDef*> out;
  for (const auto& w : suite.workloads) {
    const bool listed = std::find(o.workloads.begin(), o.workloads.end(), w.id) != o.workloads.end();
    if (o.workloads.empty() ? (!o.quick || w.quick) : listed) out.push_back(&w);
  }
  return out;
}

std::vector<std::string> categories_of(const Suite& suite, const ScoreResult& r) {
  std::vector<std::string> out;
  for (const auto& c : suite.categories) {
    bool used = false;
    for (const auto& w : r.workloads)
      for (const auto& f : w.figures) used = used || f.category == c;
    for (const auto& d : suite.workloads)
      for (const auto& w : r.workloads)
        if (d.id == w.id && w.status != WorkloadStatus::unsupported)
          for (const auto& m : metrics_of(d)) used = used || category_of(d, m) == c;
    if (used) out.push_back(c);
  }
  return out;
}

ScoreResult run_suite(const Suite& suite, const ScoreOptions& o, const ScoreContext& ctx) {
  const ModeSettings mode = mode_of(suite, o);
  ScoreResult r;
  r.suite = suite.version;
  r.quick = o.quick;
  r.machine = ctx.machine;
  r.repetitions = mode.repetitions;
  r.ci_method = kCiMethod;
  r.harness = harness_fingerprint(mode, this_build());
  set_constants_warning(r, suite);
  if (!o.workloads.empty())
    r.warnings.push_back("a subset of the suite (--workloads): its overall score is not the suite's");
  if (mode.repetitions < 2) r.warnings.push_back("one repetition: no confidence intervals and no drift");
  const auto start = std::chrono::steady_clock::now();
  const auto todo = selected(suite, o);
  for (size_t i = 0; i < todo.size(); ++i) {
    const WorkloadDef& def = *todo[i];
    if (stopped(ctx)) {
      ScoreWorkload w;
      w.id = def.id;
      w.model = def.model;
      w.precision = def.precision;
      w.reason = "not run: interrupted (Ctrl-C) before it";
      add_missing_figures(def, o.quick, w);
      r.workloads.push_back(w);
      r.partial = true;
      continue;
    }
    if (ctx.progress) ctx.progress(fmt::format("workload {}/{}: {}", i + 1, todo.size(), def.id));
    r.workloads.push_back(run_one(def, o, suite, mode, ctx));
    if (stopped(ctx)) r.partial = true;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rescore(r, categories_of(suite, r));
    if (ctx.on_workload) ctx.on_workload(r);
  }
  if (!o.workloads.empty()) r.overall.incomplete = true;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rescore(r, categories_of(suite, r));
  if (!o.workloads.empty()) r.overall.incomplete = true;
  return r;
}

ScoreResult rescore_stored(const Suite& suite, ScoreResult stored) {
  if (stored.suite != suite.version)
    throw UserError("score --from: the result is of suite " + stored.suite + ", this rooflens scores suite " +
                    suite.version + "; scores of different suites are not comparable");
  if (stored.kind != "measured")
    throw UserError("score --from: a projected result has no raw figures to score again");
  for (auto& w : stored.workloads) {
    auto def = std::find_if(suite.workloads.begin(), suite.workloads.end(), [&](const WorkloadDef& d) { return d.id == w.id; });
    if (def == suite.workloads.end())
      throw UserError("score --from: workload '" + w.id + "' is not in suite " + suite.version);
    const auto metrics = metrics_of(*def);
    for (auto& f : w.figures) {
      if (std::find(metrics.begin(), metrics.end(), f.metric) == metrics.end() || category_of(*def, f.metric) != f.category)
        throw UserError("score --from: workload '" + w.id + "' has no figure '" + f.metric + "' in suite " + suite.version);
      const FigureReference* ref = reference_of(*def, stored.quick, f.metric);
      f.reference_time_ms = ref ? ref->time_ms : 0;
      f.reference_roof_time_ms = ref ? ref->roof_time_ms : 0;
    }
  }
  set_constants_warning(stored, suite);
  const bool subset = subset_run(stored);
  rescore(stored, categories_of(suite, stored));
  if (subset) stored.overall.incomplete = true;
  return stored;
}

Suite with_references(const Suite& suite, const ScoreContext& ctx) {
  Suite out = suite;
  const ModeSettings mode = suite.quick;
  for (auto& def : out.workloads) {
    if (def.precision == "fp16") continue;
    if (stopped(ctx)) throw UserError("score --write-references: interrupted; nothing written");
    if (ctx.progress) ctx.progress(def.id + " · reference outputs (graph optimizations disabled)");
    const std::filesystem::path model = build_model(def, ctx.work_dir / "models");
    kind_of(def.kind).write_reference(def, model, kind_context(ctx, mode, nullptr));
    std::error_code ec;
    std::filesystem::remove(model, ec);
  }
  return out;
}

Suite with_constants(const Suite& suite, const ConstantsSource& source) {
  Suite out = suite;
  out.reference_configuration = source.configuration;
  out.reference_roofs = source.roofs;
  std::set<bool> modes;
  for (const ScoreResult& reference : source.results) {
    const std::string mode = mode_name(reference.quick);
    if (!modes.insert(reference.quick).second)
      throw UserError("score --reference-result: two " + mode + " results; give one per mode");
    if (reference.kind != "measured" || reference.partial || subset_run(reference))
      throw UserError("score --reference-result: the " + mode + " result is not a whole measured run of the suite");
    // The result's build is recorded, not required here: the suite's own test holds the built-in suite's constants
    // to a Release build's harness (a build that is not the Release one cannot make them silently).
    HarnessFingerprint expected = harness_fingerprint(suite.mode(reference.quick), release_build());
    if (auto build = reference.harness.find("build"); build != reference.harness.end()) expected["build"] = build->second;
    if (const std::string d = fingerprint_difference(expected, reference.harness); !d.empty())
      throw UserError("score --reference-result: the " + mode + " result was not measured with this rooflens' "
                      "harness for suite " + suite.version + " (" + d + "); measure it again with this code");
    out.constants[mode] = {source.configuration, reference.harness, source.provisional};
    for (auto& def : out.workloads) {
      if (def.precision == "fp16" || (reference.quick && !def.quick)) continue;
      auto w = std::find_if(reference.workloads.begin(), reference.workloads.end(),
                            [&](const ScoreWorkload& x) { return x.id == def.id; });
      if (w == reference.workloads.end() || w->status != WorkloadStatus::valid)
        throw UserError("score --reference-result: workload '" + def.id + "' is not valid in the " + mode + " result");
      auto& figures = def.figures[mode];
      figures.clear();
      for (const auto& f : w->figures) figures[f.metric] = {time_ms_of(f, stats::geometric_mean(f.repetitions)), f.roof.time_ms};
    }
  }
  return out;
}

}  // namespace rooflens::score
