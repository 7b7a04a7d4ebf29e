#include "cli/fleet_flags.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "cli/fleet_view.h"
#include "cli/interrupt.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/fleet_tags.h"
#include "db/fleet_store.h"
#include "db/store.h"
#include "db/url.h"
#include "fleet/github_actions.h"
#include "fleet/kubernetes.h"
#include "fleet/plan.h"
#include "fleet/slurm.h"
#include "fleet/slurm_job.h"

namespace rooflens::cli {
namespace {

namespace fs = std::filesystem;

// Options a task gets from the fleet, not from the user's command line: the fleet's own, the database's (the
// plan adds them with the fleet tags), the shard (one per task) and the output (one per task).
const std::set<std::string>& fleet_owned() {
  static const std::set<std::string> s{
      "--slurm", "--slurm-opt", "--slurm-script-only", "--fleet-dir", "--slurm-shared", "--slurm-poll", "--fleet-whole",
      "--k8s-indexed-job", "--k8s-image", "--k8s-namespace", "--actions-matrix", "--actions-runs-on", "--manifest",
      "--db", "--no-db", "--tag", "--commit", "--shard", "--output", "--help", "--help-all"};
  return s;
}

std::string name_of(const CLI::Option& o) {
  if (!o.get_lnames().empty()) return "--" + o.get_lnames().front();
  if (!o.get_snames().empty()) return "-" + o.get_snames().front();
  return "";
}

// The options the user gave `cmd` (but the fleet's and `per_task`), as words a task passes to the same command:
// positionals first, then each option once per value as --name=value (a flag once per time it was given).
std::vector<std::string> replay_args(const CLI::App& cmd, const std::vector<std::string>& per_task) {
  std::vector<std::string> positional, named;
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->count() == 0) continue;
    const std::string name = name_of(*o);
    if (fleet_owned().count(name) || std::find(per_task.begin(), per_task.end(), name) != per_task.end()) continue;
    if (o->get_positional()) {
      for (const auto& v : o->results()) positional.push_back(v);
    } else if (o->get_expected_max() == 0) {  // a flag
      for (size_t i = 0; i < o->count(); ++i) named.push_back(name);
    } else {
      for (const auto& v : o->results()) named.push_back(name.rfind("--", 0) == 0 ? name + "=" + v : name + v);
    }
  }
  positional.insert(positional.end(), named.begin(), named.end());
  return positional;
}

std::string given_output(const CLI::App& cmd) {
  const CLI::Option* o = cmd.get_option_no_throw("--output");
  return o && o->count() > 0 ? fs::absolute(o->results().back()).string() : "";
}

std::string this_binary() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw UserError("cannot find the rooflens binary (/proc/self/exe): " + ec.message());
  return p.string();
}

// The fleet's plan and the folder of its script and logs (--fleet-dir, else ./rooflens-fleet/ID).
struct Plan : fleet::FleetPlan {
  std::string fleet_dir;
};

// What every scheduler's plan shares: the command, the user's words, the database's tags and a new fleet id.
fleet::FleetPlan common_plan(const FleetFlags& f, const CLI::App& cmd, const DbFlags& db, const FleetShape& shape) {
  fleet::FleetPlan p;
  p.command = shape.command;
  p.sharded = shape.sharded && !f.whole;
  p.args = replay_args(cmd, shape.per_task_flags);
  p.task_args = shape.task_args;
  p.fleet_id = fleet::new_fleet_id(shape.command);
  p.commit = db.commit;
  p.tags = db.tags;
  return p;
}

// Slurm's: the nodes share this machine's filesystem, so the binary, the working directory, an SQLite file and -o
// are this machine's paths, made absolute.
Plan fleet_plan_of(const FleetFlags& f, const CLI::App& cmd, const DbFlags& db, const FleetShape& shape) {
  if (db.off) throw UsageError("--no-db: a fleet's tasks store into one database; give --db URL (docs/fleet.md)");
  Plan p;
  static_cast<fleet::FleetPlan&>(p) = common_plan(f, cmd, db, shape);
  p.tasks = f.slurm > 0 ? f.slurm : 1;
  if (!p.task_args.empty()) {
    const auto n = static_cast<int64_t>(p.task_args.size());
    if (f.slurm > 0 && f.slurm != n)
      throw UsageError(fmt::format("--slurm {}: the {} grid has {} configurations, one task each; give --slurm {}",
                                   f.slurm, shape.command, n, n));
    p.tasks = n;
  }
  p.rooflens = this_binary();
  p.workdir = fs::current_path().string();
  p.db_url = db::resolve_db_url(db.url);
  fleet::check_db_url(p.db_url);
  if (db::parse_db_url(p.db_url).kind == db::DbKind::sqlite) p.db_url = fs::absolute(db::parse_db_url(p.db_url).target).string();
  p.fleet_dir = fs::absolute(f.fleet_dir.empty() ? fs::path("rooflens-fleet") / p.fleet_id : fs::path(f.fleet_dir)).string();
  p.output = given_output(cmd);
  // Bench always writes a results folder (default ./bench-results): the tasks must not share one.
  if (p.output.empty() && shape.command == "bench") p.output = p.fleet_dir;
  p.scheduler = "slurm";
  return p;
}

std::string phase_line(const std::string& job, const std::vector<fleet::TaskState>& states, int64_t stored) {
  const fleet::PhaseCounts c = fleet::count_phases(states);
  return fmt::format("slurm job {}: {} pending, {} running, {} done, {} failed; {} model(s) stored", job, c.pending,
                     c.running, c.done, c.failed, stored);
}

// Models stored so far under the fleet's tag (a requeued task's second store of a model counts once).
int64_t models_stored(const std::string& url, const std::string& fleet_id) {
  try {
    auto store = db::ResultStore::open(url);
    return db::fleet_models_stored(*store, fleet_id);
  } catch (const std::exception&) {
    return 0;  // the database not there yet (no task has stored): nothing stored
  }
}

void say_failures(const std::string& job, const std::vector<fleet::TaskState>& states, const std::string& log_dir) {
  for (const auto& t : states) {
    if (t.phase != fleet::TaskPhase::failed) continue;
    std::cerr << fmt::format("rooflens: task {} of Slurm job {} failed: {}{}{}; its log: {}/task-{}.log\n", t.index, job,
                             t.state, t.exit_code.empty() ? "" : " (exit " + t.exit_code + ")",
                             t.node.empty() ? "" : " on node " + t.node, log_dir, t.index);
  }
}

// --k8s-indexed-job / --actions-matrix: the plan as the scheduler's side sees it — no local paths (its binary, its
// working directory and -o as given are the pod's or the runner's), the database named explicitly.
fleet::FleetPlan manifest_plan(const FleetFlags& f, const CLI::App& cmd, const DbFlags& db, const FleetShape& shape,
                               int64_t tasks, const std::string& scheduler) {
  if (db.off || db.url.empty())
    throw UsageError("--db URL: a fleet's tasks store into one database the pods or runners reach; name it "
                     "(postgresql://user@host/db, the password from the scheduler's secret)");
  fleet::FleetPlan p = common_plan(f, cmd, db, shape);
  p.tasks = tasks;
  p.db_url = db.url;
  const CLI::Option* o = cmd.get_option_no_throw("--output");
  if (o && o->count() > 0) p.output = o->results().back();
  p.scheduler = scheduler;
  return p;
}

int write_manifest(const FleetFlags& f, const CLI::App& cmd, const DbFlags& db, const FleetShape& shape) {
  if ((f.k8s_tasks > 0) + (f.actions_tasks > 0) + (f.slurm > 0 || !f.script_only.empty()) > 1)
    throw UsageError("--slurm, --k8s-indexed-job and --actions-matrix each write one scheduler's file: give one");
  db.validate();
  std::string text, what;
  if (f.k8s_tasks > 0) {
    fleet::KubernetesOptions k;
    k.image = f.k8s_image;
    k.namespace_name = f.k8s_namespace;
    text = fleet::indexed_job_manifest(manifest_plan(f, cmd, db, shape, f.k8s_tasks, "kubernetes"), k);
    what = "Kubernetes Indexed Job";
  } else {
    fleet::ActionsOptions a;
    if (!f.actions_runs_on.empty()) a.runs_on = f.actions_runs_on;
    text = fleet::actions_matrix_workflow(manifest_plan(f, cmd, db, shape, f.actions_tasks, "github-actions"), a);
    what = "GitHub Actions workflow";
  }
  if (f.manifest.empty() || f.manifest == "-") {
    std::cout << text;
    return 0;
  }
  write_file_atomically(f.manifest, text);
  std::cerr << fmt::format("rooflens {}: wrote {} ({})\n", shape.command, f.manifest, what);
  return 0;
}

}  // namespace

void FleetFlags::add_to(CLI::App& app) {
  // One group in --help: a command's own flags first, then how to spread it over a scheduler.
  const std::string group = "Fleet (docs/fleet.md)";
  auto* s = app.add_option("--slurm", slurm, "Run as a Slurm job array of N tasks, follow it, print the merged result "
                                             "(needs --db; docs/fleet.md)")
                ->check(CLI::Range(int64_t{1}, int64_t{100000}))
                ->group(group);
  app.add_option("--slurm-opt", slurm_options, "sbatch options for the array, as sbatch spells them: "
                                               "\"--partition=cpu --time=1:00:00\"")
      ->group(group);
  app.add_option("--slurm-script-only", script_only, "Write the sbatch script to FILE and stop (submit it yourself); "
                                                     "with --slurm N for N tasks (default 1)")
      ->group(group);
  app.add_option("--fleet-dir", fleet_dir, "Where the script and the tasks' logs go (default ./rooflens-fleet/ID; "
                                           "on a filesystem every node sees)")
      ->group(group);
  app.add_flag("--slurm-shared", shared_nodes, "Let tasks share a node (default: each task has its node to itself, so "
                                               "no task's timings include another's)")
      ->group(group);
  app.add_flag("--fleet-whole", whole, "Every task runs the whole command on its machine (bench: every model, no "
                                      "shards), so two machines' results folders can be compared (rooflens compare)")
      ->group(group);
  app.add_option("--k8s-indexed-job", k8s_tasks, "Write a Kubernetes Indexed Job of N pods (completion index -> task) "
                                                 "to stdout or --manifest; needs --k8s-image and --db")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}))
      ->group(group);
  app.add_option("--k8s-image", k8s_image, "The container image with rooflens the pods run")->group(group);
  app.add_option("--k8s-namespace", k8s_namespace, "The Job's namespace (default: kubectl's current one)")
      ->group(group);
  app.add_option("--actions-matrix", actions_tasks, "Write a GitHub Actions workflow whose matrix runs N tasks to "
                                                    "stdout or --manifest; needs --db")
      ->check(CLI::Range(int64_t{1}, int64_t{256}))
      ->group(group);
  app.add_option("--actions-runs-on", actions_runs_on, "A runner label the legs need (repeatable; default self-hosted)")
      ->group(group);
  app.add_option("--manifest", manifest, "Write the Kubernetes or GitHub Actions file here instead of stdout")
      ->group(group);
  app.add_option("--slurm-poll", poll_s, "Seconds between squeue polls while following (default 5)")
      ->check(CLI::Range(0.1, 3600.0))
      ->needs(s)
      ->group(group);
}

int run_fleet(const FleetFlags& f, const CLI::App& cmd, const DbFlags& db, const FleetShape& shape) {
  if (f.k8s_tasks > 0 || f.actions_tasks > 0) return write_manifest(f, cmd, db, shape);
  if (f.slurm == 0 && f.script_only.empty()) throw UsageError("no fleet flag given");
  db.validate();
  const Plan plan = fleet_plan_of(f, cmd, db, shape);
  fleet::SlurmOptions so;
  so.sbatch = fleet::split_sbatch_options(f.slurm_options);
  so.exclusive = !f.shared_nodes;
  so.log_dir = plan.fleet_dir;
  const fs::path dir = plan.fleet_dir;
  const std::string script = fleet::sbatch_script(plan, so);
  const std::string cmdname = "rooflens " + shape.command;
  if (!f.script_only.empty()) {
    write_file_atomically(f.script_only, script);
    std::cerr << fmt::format("{}: wrote {} ({} array task(s), fleet {}); submit it with `sbatch {}` and read the results "
                             "back with `rooflens history --fleet {}`\n",
                             cmdname, f.script_only, plan.tasks, plan.fleet_id, f.script_only, plan.fleet_id);
    return 0;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UserError("--fleet-dir " + dir.string() + ": cannot create it (" + ec.message() + ")");
  const std::string script_path = (dir / "job.sbatch").string();
  write_file_atomically(script_path, script);
  const std::string job = fleet::submit_sbatch(script_path);
  std::cerr << fmt::format("{}: submitted Slurm job {} ({} task(s)), fleet {}; script and logs in {}\n", cmdname, job,
                           plan.tasks, plan.fleet_id, dir.string());
  InterruptWatcher watcher(fmt::format("{}: stopped following; Slurm job {} keeps running — cancel it with `scancel {}`, "
                                       "read what it stored with `rooflens history --fleet {}`",
                                       cmdname, job, job, plan.fleet_id),
                           [] {});
  fleet::FollowOptions fo;
  fo.poll_s = f.poll_s;
  fo.stop = &watcher.flag();
  fo.on_change = [&](const std::vector<fleet::TaskState>& states) {
    std::cerr << cmdname << ": " << phase_line(job, states, models_stored(plan.db_url, plan.fleet_id)) << "\n";
  };
  const auto states = fleet::follow_job(job, plan.tasks, fo);
  if (watcher.flag()) return 1;
  say_failures(job, states, so.log_dir);
  const auto c = fleet::count_phases(states);
  std::cerr << fmt::format("{}: Slurm job {} ended: {} of {} task(s) done, {} failed\n", cmdname, job, c.done, plan.tasks,
                           c.failed);
  try {
    print_fleet(plan.db_url, plan.fleet_id, std::cout);  // the merged result, as `history --fleet ID` shows it
  } catch (const UserError& e) {
    std::cerr << cmdname << ": " << e.what() << "\n";  // no task stored anything: said, and the exit code is 1
    return 1;
  }
  return c.failed > 0 ? 1 : 0;
}

}  // namespace rooflens::cli
