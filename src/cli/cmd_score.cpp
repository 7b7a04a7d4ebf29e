// `rooflens score`: a hardware AI benchmark score — the versioned suite (src/score/, data/score/v2/suite.json)
// measured on this machine through capacity and generation, validated against the suite's reference outputs,
// scored against its reference constants and explained as roof ratio × efficiency (docs/score.md).
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "backends/registry/registry.h"
#include "capacity/loadgen/settings.h"
#include "capacity/sut/pool.h"
#include "cli/commands.h"
#include "cli/db_flags.h"
#include "cli/fleet_flags.h"
#include "cli/interrupt.h"
#include "cli/roofs.h"
#include "core/atomic_file.h"
#include "core/build_info.h"
#include "core/errors.h"
#include "core/history.h"
#include "core/score.h"
#include "core/temp_dir.h"
#include "db/score_store.h"
#include "db/store.h"
#include "hw/cpu_features.h"
#include "hw/machine.h"
#include "reporters/score_summary.h"
#include "score/run_suite.h"
#include "score/projection_workloads.h"
#include "score/suite.h"
#include "whatif/score_projection.h"
#include "whatif/score_projection_efficiency.h"

namespace rooflens::cli {
namespace {

struct ScoreCommand {
  score::ScoreOptions o;
  std::string out_json, from, suite_file, write_references, roofs_file, project;
  std::vector<std::string> reference_results;   // --reference-result, one per mode
  bool json = false, no_roofs = false, quiet = false, provisional = false;
  DbFlags db;
  FleetFlags fleet;
};

std::string read_flag_file(const std::string& path, const std::string& flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(flag + " " + path + ": cannot read the file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

score::Suite load_suite(const ScoreCommand& a) {
  if (a.suite_file.empty()) return score::builtin_suite();
  return score::parse_suite(read_flag_file(a.suite_file, "--suite"), a.suite_file);
}

ScoreResult read_result(const std::string& path, const std::string& flag) {
  try {
    return score_from_json(read_flag_file(path, flag));
  } catch (const UserError& e) {
    throw UserError(flag + " " + path + ": " + e.what());
  }
}

std::string now_iso() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

void print_result(const ScoreCommand& a, const ScoreResult& r) {
  if (a.json) std::cout << score_to_json(r);
  else std::cout << score_summary(r);
  if (!a.out_json.empty()) {
    write_file_atomically(a.out_json, score_to_json(r));
    if (!a.quiet) std::cerr << "rooflens score: result written to " << a.out_json << "\n";
  }
}

int score_exit_code(const ScoreResult& r) { return r.partial || r.overall.incomplete || r.overall.score <= 0 ? 1 : 0; }

// Stores a score result (measured or projected) in the database --db names, after its files are written: 0 when
// stored, already there or --no-db; kExitDbFailed after one warning line otherwise (the result files stand). Called
// once the result is final (not after Ctrl-C: a partial result is not stored).
int store_score_result(const DbFlags& db, const ScoreResult& r, bool quiet) {
  if (db.off) return 0;
  try {
    const std::string url = db::resolve_db_url(db.url);
    auto s = db::ResultStore::open(url);
    auto id = db::store_score(s->connection(), r, db.tag_map());  // fleet=ID: a requeued task's score counts once
    if (!quiet)
      std::cerr << "rooflens score: " << (id ? "stored" : "already stored") << " in " << db::parse_db_url(url).shown
                << (id ? " (score " + *id + ")" : std::string()) << "\n";
    return 0;
  } catch (const UserError& e) {
    std::cerr << "rooflens score: warning: score not stored: " << e.what() << "; the result files stand\n";
    return kExitDbFailed;
  }
}

// This machine's latest measured score of the projection's suite and mode, if the database holds one.
std::optional<ScoreResult> latest_measured(const ScoreCommand& a, const ScoreResult& projected) {
  if (a.db.off) return std::nullopt;
  try {
    auto store = db::ResultStore::open(db::resolve_db_url(a.db.url));
    db::ScoreQuery q{projected.suite, fingerprint_of(projected.machine.machine, nullptr).id, "", true};
    std::optional<ScoreResult> out;
    for (auto& s : db::load_scores(store->connection(), q))
      if (s.result.quick == projected.quick) out = std::move(s.result);
    return out;
  } catch (const db::DbError& e) {
    if (!a.quiet) std::cerr << "rooflens score: no calibration: " << e.what() << "\n";
    return std::nullopt;
  }
}

// Every stored measured score of the suite (any machine, either mode): what the projection may learn efficiency
// from (whatif/score_projection_efficiency.h picks the ones that teach the target).
std::vector<EfficiencyEvidence> stored_evidence(const ScoreCommand& a, const std::string& suite) {
  std::vector<EfficiencyEvidence> out;
  if (a.db.off) return out;
  try {
    auto store = db::ResultStore::open(db::resolve_db_url(a.db.url));
    for (auto& s : db::load_scores(store->connection(), db::ScoreQuery{suite, "", "", true}))
      out.push_back({s.machine, std::move(s.result)});
  } catch (const db::DbError& e) {
    if (!a.quiet) std::cerr << "rooflens score: efficiency not learned (database): " << e.what() << "\n";
  }
  return out;
}

// `--validate`: one line per workload, what the gate said. 0 when every workload that runs is valid.
int print_validation(const ScoreCommand& a, const ScoreResult& r) {
  bool all_valid = !r.partial;
  std::string text = fmt::format("rooflens score --validate · suite {} · {} workload(s) against the reference outputs\n",
                                 r.suite, r.workloads.size());
  size_t width = 0;
  for (const auto& w : r.workloads) width = std::max(width, w.id.size());
  for (const auto& w : r.workloads) {
    all_valid = all_valid && (w.status == WorkloadStatus::valid || w.status == WorkloadStatus::unsupported);
    text += fmt::format("  {:<{}} {:<11} {}{}\n", w.id, width, to_string(w.status),
                        w.max_abs_error > 0 ? fmt::format("max abs error {:.3g}  ", w.max_abs_error) : "", w.reason);
  }
  if (a.json) std::cout << score_to_json(r);
  else std::cout << text;
  if (!a.out_json.empty()) write_file_atomically(a.out_json, score_to_json(r));
  return all_valid ? 0 : 1;
}

int run_from(const ScoreCommand& a) {
  const score::Suite suite = load_suite(a);
  ScoreResult r = score::rescore_stored(suite, read_result(a.from, "--from"));
  print_result(a, r);
  return score_exit_code(r);
}

ScoreMachine score_machine_of(const std::optional<HardwareInfo>& roofs, const Backend& backend, int64_t cores,
                        const std::string& roofs_source) {
  ScoreMachine m;
  m.machine = roofs ? roofs->machine : hw::describe_machine(hw::detect_features());
  m.cores_used = cores;
  m.tool = tool_info("score");
  m.runtime = backend.info();
  m.roofs = roofs ? roofs_source : "";
  return m;
}

// `--project DEVICE`: the suite's workloads analysed (nothing runs) and projected from the suite's reference roofs
// onto the device's roofs, or onto this machine's measured roofs (DEVICE "this" or "measured": then each figure's
// efficiency is learned from the measured scores of this machine's CPU class in the database, and the calibration
// error against this machine's latest measured score of the same suite and mode is printed); whatif/score_projection.h.
// The result is printed, written with -o, and stored (kind "projected") like a measured score.
int run_project(const ScoreCommand& a) {
  const score::Suite suite = load_suite(a);
  if (!suite.reference_roofs)
    throw UserError("--project: suite " + suite.version + " carries no reference roofs to project from (regenerate "
                    "it with --write-references FILE --reference-result RESULT)");
  const int64_t cores = capacity::usable_cores();
  TempDir work("rooflens-score-project");
  ProjectionSetup setup;
  setup.suite = suite.version;
  setup.quick = a.o.quick;
  setup.categories = suite.categories;
  setup.reference_roofs = *suite.reference_roofs;
  setup.machine = score_machine_of(std::nullopt, *make_backend(parse_backend_spec("onnxruntime")), cores, "");
  setup.created_at = now_iso();
  if (auto c = suite.constants.find(score::mode_name(a.o.quick)); c != suite.constants.end() && c->second.provisional)
    setup.warnings.push_back("suite " + suite.version + "'s " + c->first + " constants and reference roofs are "
                             "provisional (measured on a shared machine while the suite was made)");
  if (!a.quiet) std::cerr << "rooflens score: analysing the suite's models for the projection\n";
  const auto workloads = score::projection_workloads(suite, a.o, work.path(), cores);
  a.db.validate();
  const ProjectionTarget target = projection_target(
      a.project, [&a] { return hw::obtain_roofs(roof_source(false, "", a.quiet, "score --project")); });
  EfficiencyTarget who{setup.suite, setup.quick, "", ""};
  if (projects_this_machine(a.project)) {
    who.isa_class = isa_class_of(setup.machine.machine);
    who.machine = fingerprint_of(setup.machine.machine, nullptr).id;
  }
  const std::vector<EfficiencyEvidence> evidence = stored_evidence(a, setup.suite);
  const EfficiencyTable efficiency(evidence, who);
  ScoreResult r = project_score(workloads, setup, target, &efficiency);
  std::vector<CalibrationRow> calibration;
  if (projects_this_machine(a.project))
    if (auto measured = latest_measured(a, r)) calibration = calibration_error(r, *measured);
  if (!a.out_json.empty()) write_file_atomically(a.out_json, score_to_json(r));
  std::cout << (a.json ? score_to_json(r) : projected_score_summary(r, calibration));
  return store_score_result(a.db, r, a.quiet);
}

int run_score_command(ScoreCommand& a) {
  if (!a.project.empty()) {
    if (!a.from.empty() || !a.write_references.empty())
      throw UsageError("--project runs nothing: give it without --from or --write-references");
    return run_project(a);
  }
  if (!a.from.empty()) {
    if (!a.write_references.empty()) throw UsageError("--from and --write-references: give one of them");
    return run_from(a);
  }
  if (!a.reference_results.empty() && a.write_references.empty())
    throw UsageError("--reference-result sets the constants of a suite file: use it with --write-references FILE");
  if (a.provisional && a.reference_results.empty())
    throw UsageError("--provisional marks constants: use it with --write-references FILE --reference-result RESULT");
  if (a.o.validate_only && !a.write_references.empty())
    throw UsageError("--validate checks the outputs only: give it without --write-references");
  if (a.o.repetitions < 0) throw UsageError("--repetitions: give at least 1");
  const score::Suite suite = load_suite(a);
  (void)score::selected(suite, a.o);  // an unknown --workloads id is a usage error before anything runs
  const int64_t cores = capacity::usable_cores();
  std::unique_ptr<Backend> backend = make_backend(parse_backend_spec("onnxruntime"));
  BackendSpec disabled = parse_backend_spec("onnxruntime");
  disabled.opt_level = "disabled";  // graphOptimizationLevel=disabled: the references
  std::unique_ptr<Backend> reference = make_backend(disabled);
  // With --reference-result the roofs are the reference configuration's, written into the suite for --project.
  // --validate measures no figure, so it needs none.
  std::optional<HardwareInfo> roofs;
  if (!a.o.validate_only && (a.write_references.empty() || !a.reference_results.empty()))
    roofs = hw::obtain_roofs(roof_source(a.no_roofs, a.roofs_file, a.quiet, "score"));
  TempDir work("rooflens-score");
  InterruptWatcher watcher("rooflens score: interrupted — finishing the workload under way as failed and writing "
                           "the partial result",
                           [&] {
                             backend->abort();
                             reference->abort();
                           });
  score::ScoreContext ctx;
  ctx.backend = backend.get();
  ctx.reference_backend = reference.get();
  ctx.roofs = roofs ? &*roofs : nullptr;
  ctx.machine = score_machine_of(roofs, *backend, cores, a.roofs_file.empty() ? "measured" : "file " + a.roofs_file);
  ctx.cores = cores;
  ctx.work_dir = work.path();
  ctx.interrupted = &watcher.flag();
  const char* hooks = std::getenv("ROOFLENS_TEST_HOOKS");
  ctx.test_hooks = hooks && std::string(hooks) == "1";
  if (!a.quiet) ctx.progress = [](const std::string& what) { std::cerr << "rooflens score: " << what << "\n"; };

  if (!a.write_references.empty()) {
    score::Suite s = score::with_references(suite, ctx);
    if (!a.reference_results.empty()) {
      score::ConstantsSource source;
      for (const auto& file : a.reference_results) source.results.push_back(read_result(file, "--reference-result"));
      source.configuration = fmt::format("{} ({} cores used), {}, rooflens {}", ctx.machine.machine.model, cores,
                                         ctx.machine.runtime.runtime, ctx.machine.tool.version);
      source.provisional = a.provisional;
      source.roofs = roofs;
      s = score::with_constants(s, source);
    }
    write_file_atomically(a.write_references, score::suite_to_json(s));
    if (!a.quiet) std::cerr << "rooflens score: suite written to " << a.write_references << "\n";
    return 0;
  }
  // A partial result is on disk after every workload: a crash of rooflens itself loses only the workload under way.
  if (!a.out_json.empty())
    ctx.on_workload = [&a](const ScoreResult& r) {
      ScoreResult partial = r;
      partial.partial = true;
      write_file_atomically(a.out_json, score_to_json(partial));
    };
  ScoreResult r = score::run_suite(suite, a.o, ctx);
  r.created_at = now_iso();
  if (a.o.validate_only) return print_validation(a, r);  // no figure: nothing to score or store
  print_result(a, r);
  const int rc = score_exit_code(r);
  // Only a finished suite goes into the results database (history --scores puts machines side by side); a partial
  // one (Ctrl-C) stays in its -o file.
  if (r.partial) return rc;
  return std::max(rc, store_score_result(a.db, r, a.quiet));
}

}  // namespace

void setup_score(CLI::App& root, Action& action) {
  auto a = std::make_shared<ScoreCommand>();
  CLI::App* cmd = root.add_subcommand("score", "A hardware AI benchmark score for this machine: a fixed, versioned "
                                               "suite of zoo models validated against reference outputs, scored "
                                               "against a reference machine and explained as roof ratio × efficiency");
  cmd->footer(
      "Examples:\n"
      "  rooflens score --quick                      (one workload per category, shorter runs: ~1-2 min)\n"
      "  rooflens score -o score.json                (the full suite v2: ~6 min on 2 cores)\n"
      "  rooflens score --validate                   (every workload's outputs against the references; no figure)\n"
      "  rooflens score --from score.json            (score a stored result again from its raw figures)\n"
      "  rooflens score --project a100-sxm4-80gb     (PROJECTED from the analysis onto a datasheet device's roofs)\n"
      "  rooflens score --project this               (onto this machine's roofs, efficiency learned from stored\n"
      "                                               scores of its CPU class: the projection's calibration)\n"
      "  rooflens score --write-references suite.json [--reference-result full.json --reference-result quick.json]\n"
      "  rooflens history --scores [--html scores.html]   (stored scores of machines side by side)\n"
      "  rooflens score --quick --slurm 8 --db postgresql://ci@db/perf   (one score on each of 8 Slurm tasks' nodes)\n"
      "Scores: reference time / measured time × 1000 per figure; geometric means per category and overall, with\n"
      "95% intervals over the repetitions. A workload whose outputs differ from the suite's references is INVALID\n"
      "and the overall score incomplete. Quick and full scores are never compared. Exit 0: a complete score; 1: an\n"
      "incomplete or partial one (INVALID, failed, Ctrl-C); 2: usage. Details: docs/score.md.");
  cmd->add_flag("--quick", a->o.quick, "One workload per category with shorter runs (labelled quick)");
  cmd->add_flag("--validate", a->o.validate_only,
                "Only check every workload's outputs against the suite's references (no figure, nothing stored); "
                "exit 0 when all are valid");
  cmd->add_option("-o,--output", a->out_json, "Write the JSON result here (rewritten after every workload)");
  cmd->add_flag("--json", a->json, "Print the JSON result on stdout instead of the table");
  cmd->add_option("--from", a->from, "Score a stored result (-o FILE) again from its raw figures; runs nothing");
  cmd->add_option("--project", a->project,
                  "Project the suite onto DEVICE's roofs (hw --device lists them; 'this': this machine's measured "
                  "roofs, efficiency learned from stored measured scores of its CPU class, and the calibration error "
                  "against its latest measured score); runs nothing, labelled PROJECTED");
  cmd->add_option("--suite", a->suite_file, "A suite file instead of the built-in one (data/score/v2/suite.json)");
  cmd->add_option("--workloads", a->o.workloads, "Only these workload ids (the score is then incomplete)")
      ->delimiter(',');
  cmd->add_option("--repetitions", a->o.repetitions,
                  "Repetitions per workload instead of the suite's (the scores then say their harness differs)");
  cmd->add_option("--write-references", a->write_references,
                  "Regenerate the reference outputs (ONNX Runtime, graphOptimizationLevel=disabled) into this suite file");
  cmd->add_option("--reference-result", a->reference_results,
                  "With --write-references: take the reference constants of this result's mode (full or quick; give "
                  "one of each) from it — the reference configuration's measurement, with this rooflens' harness");
  cmd->add_flag("--provisional", a->provisional,
                "With --reference-result: mark the constants provisional (not the reference configuration's yet)");
  cmd->add_option("--roofs", a->roofs_file, "Ceilings from this file instead of this machine's measured ones");
  cmd->add_flag("--no-roofs", a->no_roofs, "No roofs: scores are not decomposed into roof ratio × efficiency");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
  a->db.add_to(*cmd);
  a->fleet.add_to(*cmd);
  cmd->callback([a, cmd, &action] {
    action = [a, cmd] {
      if (!a->fleet.active()) return run_score_command(*a);
      if (!a->from.empty() || !a->project.empty() || a->o.validate_only || !a->write_references.empty())
        throw UsageError("--slurm runs the suite on each task's machine: --from, --project, --validate and "
                         "--write-references run nothing there");
      return run_fleet(a->fleet, *cmd, a->db, FleetShape{"score", false, {}, {}});
    };
  });
}

}  // namespace rooflens::cli
