#pragma once
// Submitting a fleet's sbatch script and following its array through Slurm's own tools until every task has
// ended. Nothing here schedules: sbatch queues, Slurm runs, squeue/sacct/scontrol say where each task is.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "fleet/slurm.h"

namespace rooflens::fleet {

// `sbatch --parsable SCRIPT`: the job id. Throws UserError with sbatch's own message (one line) when it refuses,
// or naming the way out when sbatch is not installed.
std::string submit_sbatch(const std::string& script_path);

// The tasks' state now: squeue for the live ones; for the ended, sacct, or scontrol where sacct has no accounting
// database to read. `queue_empty` says squeue listed none of the job's tasks.
std::vector<TaskState> poll_tasks(const std::string& job, int64_t tasks, bool& queue_empty);

struct FollowOptions {
  double poll_s = 5;                                  // seconds between polls
  std::function<void(const std::vector<TaskState>&)> on_change;  // called when a count changes (and every minute)
  const std::atomic<bool>* stop = nullptr;            // Ctrl-C: return at the next poll, leaving the job alone
};

// Polls until every task has ended (or `stop`): the last states. A job whose tasks left the queue without any tool
// able to say how they ended gets state UNKNOWN (failed) after two empty polls, never a wait for ever.
std::vector<TaskState> follow_job(const std::string& job, int64_t tasks, const FollowOptions& options);

}  // namespace rooflens::fleet
