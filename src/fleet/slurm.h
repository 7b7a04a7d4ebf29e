#pragma once
// A fleet run as a Slurm job array: the sbatch script (one array task per shard), and the array's state as Slurm's
// own tools report it (squeue while tasks live; sacct, or scontrol where no accounting database is kept, after).
// The parsers are pure functions of the tools' text, so a test feeds them what real Slurm printed.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fleet/plan.h"

namespace rooflens::fleet {

struct SlurmOptions {
  std::vector<std::string> sbatch;  // --slurm-opt, split into words: "#SBATCH WORD" lines (--partition=cpu ...)
  std::string log_dir;              // absolute: task I writes LOG_DIR/task-I.log (every attempt appended)
  bool exclusive = true;            // a task has its node to itself: timings are not shared with another task's
};

// The script: #SBATCH lines (job name, --array=0-(N-1), output, append, requeue, chdir, exclusive, the user's
// options), a line naming the task in its log, then `exec` of the task's command line.
std::string sbatch_script(const FleetPlan& plan, const SlurmOptions& options);

// "--partition=cpu --time=1:00:00" -> its words (single and double quotes group). Throws UsageError naming the
// word when one does not start with '-'.
std::vector<std::string> split_sbatch_options(const std::string& text);

// `sbatch --parsable` printed "123" or "123;cluster": the job id, nullopt when it is neither.
std::optional<std::string> parsable_job_id(const std::string& out);

enum class TaskPhase { pending, running, done, failed };

struct TaskState {
  int64_t index = -1;       // the array task id
  std::string state;        // Slurm's word: PENDING, RUNNING, COMPLETED, CANCELLED, FAILED, TIMEOUT ...
  std::string node;         // where it ran or runs ("" while pending)
  std::string exit_code;    // "0:0" (exit status : signal), "" when not known
  TaskPhase phase = TaskPhase::pending;
};

// Slurm's state word (with any "by UID" suffix) as a phase: COMPLETED -> done (failed when exit_code is not 0:0),
// the end states that are not success (FAILED, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL,
// DEADLINE) -> failed, RUNNING/COMPLETING/... -> running, the rest (PENDING, REQUEUED, ...) -> pending.
TaskPhase phase_of(const std::string& state, const std::string& exit_code = "");

// `squeue -h -r -j JOB -o %i|%T|%N`: one line per live task ("123_2|RUNNING|node1").
std::vector<TaskState> parse_squeue(const std::string& text, const std::string& job);
// `sacct -n -P -X -j JOB -o JobID,State,NodeList,ExitCode`: one line per task ("123_2|COMPLETED|node1|0:0").
std::vector<TaskState> parse_sacct(const std::string& text, const std::string& job);
// `scontrol -o show job JOB`: one line per task (ArrayJobId=123 ArrayTaskId=2 JobState=... NodeList=... ExitCode=...).
std::vector<TaskState> parse_scontrol(const std::string& text, const std::string& job);

// Where each of the N tasks is, newest knowledge first: `live` (squeue) over `ended` (sacct / scontrol). A task in
// neither is pending (not yet listed) unless `all_ended` says the array has left the queue (then it is failed with
// state "UNKNOWN").
std::vector<TaskState> merge_states(int64_t tasks, const std::vector<TaskState>& live,
                                    const std::vector<TaskState>& ended, bool all_ended);

struct PhaseCounts {
  int64_t pending = 0, running = 0, done = 0, failed = 0;
  bool finished() const { return pending == 0 && running == 0; }
};
PhaseCounts count_phases(const std::vector<TaskState>& tasks);

}  // namespace rooflens::fleet
