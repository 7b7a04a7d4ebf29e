#pragma once
// A fleet run: one rooflens command spread over N tasks of a scheduler people already run (a Slurm job array, a
// Kubernetes Indexed Job, a CI matrix). rooflens writes what the scheduler needs and reads its state; it never
// queues, leases or coordinates anything itself (docs/fleet.md).
//
// What a task runs is the user's own command line with the task's part added: `bench` takes the models of its
// shard (`--shard I/N`, bench/shard.h: a partition by model name, the same on every node), `score` runs whole on
// each task's machine. Every task stores into one database with the same tags, so a requeued task replaces its
// earlier attempt instead of doubling it (core/fleet_tags.h).
#include <cstdint>
#include <string>
#include <vector>

namespace rooflens::fleet {

// One word of a task's command line. Literal words are the user's, passed as they were; an `expands` word's text is
// written for the task's shell, where the scheduler's variables ($SLURM_ARRAY_TASK_ID ...) are replaced, between
// literal text of the user's (`before`, `after`: an -o path around the task's index), quoted on its own.
struct Word {
  std::string text;
  bool expands = false;
  std::string before, after;
};

// How the scheduler names the task's part, as shell expressions evaluated inside the task.
struct TaskVars {
  std::string index;    // 0-based task index: "$SLURM_ARRAY_TASK_ID", "$JOB_COMPLETION_INDEX", "${{ matrix.index }}"
  std::string attempt;  // which run of this task: "${SLURM_RESTART_COUNT:-0}"
  std::string node;     // where it runs: "$SLURMD_NODENAME"
  std::string job;      // the scheduler's own id of the whole fleet run ("" when it has none)
  std::string job_tag;  // the tag key the job id goes under ("slurm_job")
};

struct FleetPlan {
  std::string command;              // "bench" | "score"
  std::vector<std::string> args;    // the command's arguments as given, without the fleet, database, shard and
                                    // output flags (the plan adds each task's own)
  int64_t tasks = 1;                // N
  bool sharded = true;              // bench: task i takes --shard i+1/N; score: every task runs the whole command
  std::string rooflens;             // the binary the tasks run (absolute; the nodes see the same path)
  std::string workdir;              // where the tasks run (absolute), so relative paths mean what they meant here
  std::string db_url;               // --db: no password inside (check_db_url); PGPASSFILE / the environment carry it
  std::string fleet_id;             // the value of the fleet tag: names this fleet run in the database
  std::string commit;               // --commit
  std::vector<std::string> tags;    // the user's own --tag key=value
  std::string output;               // the command's -o ("" = none): each task attempt writes its own (task_output)
  std::string scheduler;            // "slurm" | "kubernetes" | "github-actions": the scheduler tag's value
  std::vector<std::vector<std::string>> task_args;  // words of task I's own ("" = every task the same): capacity's
                                    // grid points, one configuration per task; the script sets them per index
};

// The words task `vars` runs: rooflens COMMAND ARGS --shard ... --db ... --tag fleet=... -o ...
std::vector<Word> task_words(const FleetPlan& plan, const TaskVars& vars);

// The words as one POSIX shell line: literal words in single quotes (or bare when they need none), expanding words
// in double quotes.
std::string shell_line(const std::vector<Word>& words);
std::string shell_quote(const std::string& literal);

// A fleet id no other fleet run has: "<command>-<UTC time>-<4 random hex>" ("bench-20261129T001500Z-a1b2").
std::string new_fleet_id(const std::string& command);

// Credentials never go into argv or a script: throws UsageError when `url` carries a password.
void check_db_url(const std::string& url);

// Where one attempt of a task writes, so a requeued attempt never meets its predecessor's files: bench's -o is a
// folder (OUTPUT/task-I-attempt-A), score's a file ("-task-I-attempt-A" before its extension), I and A as the
// scheduler's shell expressions.
std::string task_output(const FleetPlan& plan, const TaskVars& vars);

}  // namespace rooflens::fleet
