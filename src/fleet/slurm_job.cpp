#include "fleet/slurm_job.h"

#include <chrono>
#include <thread>

#include "core/errors.h"
#include "fleet/command.h"

namespace rooflens::fleet {

std::string submit_sbatch(const std::string& script_path) {
  const CommandResult r = run_command({"sbatch", "--parsable", script_path});
  if (r.exit_code == 127)
    throw UserError("sbatch is not installed here (" + first_line(r) + "): run on a Slurm login node, or write the "
                    "script with --slurm-script-only FILE and submit it where Slurm is");
  if (r.exit_code != 0 || r.timed_out) throw UserError("sbatch refused " + script_path + ": " + first_line(r));
  auto id = parsable_job_id(r.out);
  if (!id) throw UserError("sbatch printed no job id for " + script_path + " ('" + first_line(r) + "')");
  return *id;
}

std::vector<TaskState> poll_tasks(const std::string& job, int64_t tasks, bool& queue_empty) {
  const CommandResult q = run_command({"squeue", "-h", "-r", "-j", job, "-o", "%i|%T|%N"});
  // squeue exits non-zero for a job id it no longer knows: the queue holds none of its tasks.
  std::vector<TaskState> live = q.exit_code == 0 ? parse_squeue(q.out, job) : std::vector<TaskState>{};
  queue_empty = live.empty();
  std::vector<TaskState> ended;
  const CommandResult a = run_command({"sacct", "-n", "-P", "-X", "-j", job, "-o", "JobID,State,NodeList,ExitCode"});
  if (a.exit_code == 0) ended = parse_sacct(a.out, job);
  if (ended.empty()) {  // no accounting storage: the controller remembers ended jobs for MinJobAge
    const CommandResult s = run_command({"scontrol", "-o", "show", "job", job});
    if (s.exit_code == 0) ended = parse_scontrol(s.out, job);
  }
  return merge_states(tasks, live, ended, false);
}

std::vector<TaskState> follow_job(const std::string& job, int64_t tasks, const FollowOptions& o) {
  using clock = std::chrono::steady_clock;
  std::vector<TaskState> states;
  PhaseCounts last{-1, -1, -1, -1};
  auto last_report = clock::now();
  int empty_polls = 0;
  for (;;) {
    bool queue_empty = false;
    states = poll_tasks(job, tasks, queue_empty);
    PhaseCounts c = count_phases(states);
    empty_polls = queue_empty ? empty_polls + 1 : 0;
    if (!c.finished() && empty_polls >= 2) {  // left the queue, and nothing says how: unknown, not pending for ever
      for (auto& t : states)
        if (t.phase == TaskPhase::pending || t.phase == TaskPhase::running) t = {t.index, "UNKNOWN", t.node, "", TaskPhase::failed};
      c = count_phases(states);
    }
    const bool changed = c.pending != last.pending || c.running != last.running || c.done != last.done ||
                         c.failed != last.failed;
    if (o.stop && *o.stop) return states;  // Ctrl-C during the poll: no progress line after the goodbye
    if (o.on_change && (changed || clock::now() - last_report > std::chrono::minutes(1))) {
      o.on_change(states);
      last_report = clock::now();
    }
    last = c;
    if (c.finished()) return states;
    const auto until = clock::now() + std::chrono::duration<double>(o.poll_s);
    while (clock::now() < until && !(o.stop && *o.stop)) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace rooflens::fleet
