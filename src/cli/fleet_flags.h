#pragma once
// The fleet flags of the commands that can run as a fleet (bench, score): `--slurm N` submits the command as a Slurm
// job array and follows it; `--slurm-script-only FILE` writes the script instead (docs/fleet.md).
//
//   FleetFlags fleet;  fleet.add_to(*cmd);
//   ...in the action, before anything runs here:
//   if (fleet.active()) return run_fleet(fleet, *cmd, db, FleetShape{"bench", true});
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/db_flags.h"

namespace rooflens::cli {

struct FleetFlags {
  int64_t slurm = 0;           // --slurm N: array tasks
  std::string slurm_options;   // --slurm-opt "...": sbatch options
  std::string script_only;     // --slurm-script-only FILE
  std::string fleet_dir;       // --fleet-dir DIR: the script and the tasks' logs (default ./rooflens-fleet/<fleet id>)
  bool shared_nodes = false;   // --slurm-shared: tasks may share a node (default: each has its node to itself)
  bool whole = false;          // --fleet-whole: every task runs the whole command (bench: no shards), so the
                               // machines can be compared side by side
  double poll_s = 5;           // --slurm-poll SECONDS
  // The other schedulers: rooflens writes their file (stdout, or --manifest FILE) and the scheduler runs it.
  int64_t k8s_tasks = 0;       // --k8s-indexed-job N
  std::string k8s_image;       // --k8s-image IMAGE
  std::string k8s_namespace;   // --k8s-namespace NS
  int64_t actions_tasks = 0;   // --actions-matrix N
  std::vector<std::string> actions_runs_on;  // --actions-runs-on LABEL (repeatable; default self-hosted)
  std::string manifest;        // --manifest FILE ("" = stdout)

  void add_to(CLI::App& app);
  bool active() const { return slurm > 0 || !script_only.empty() || k8s_tasks > 0 || actions_tasks > 0; }
};

struct FleetShape {
  std::string command;  // "bench" | "score" | "capacity"
  bool sharded = true;  // tasks take disjoint shards (bench) or run whole (score: one score per machine)
  // Tasks with words of their own (capacity --search: one grid point each): task I gets task_args[I], and the flags
  // they stand for are left out of the words every task shares.
  std::vector<std::vector<std::string>> task_args;
  std::vector<std::string> per_task_flags;
};

// Writes the script (and, unless --slurm-script-only, submits it, follows the array on stderr and prints the merged
// result), or the Kubernetes Indexed Job / GitHub Actions workflow for --k8s-indexed-job / --actions-matrix. `cmd`: the parsed subcommand, whose given options become each task's command line. Exit 0 when every
// task ended well, 1 when any failed (each named with its node and log) or on Ctrl-C (the job is left running).
int run_fleet(const FleetFlags& fleet, const CLI::App& cmd, const DbFlags& db, const FleetShape& shape);

}  // namespace rooflens::cli
