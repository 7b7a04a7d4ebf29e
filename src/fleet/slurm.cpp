#include "fleet/slurm.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/build_info.h"
#include "core/errors.h"

namespace rooflens::fleet {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (std::string& l : split(text, '\n')) {
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.pop_back();
    if (!l.empty()) out.push_back(std::move(l));
  }
  return out;
}

std::optional<int64_t> to_index(const std::string& s) {
  int64_t v = -1;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// "123_2" of job "123" -> 2; anything else (another job, "123_[3-5]" still unsplit, "123_2.batch") -> nullopt.
std::optional<int64_t> array_index(const std::string& id, const std::string& job) {
  if (id.size() <= job.size() + 1 || id.compare(0, job.size(), job) != 0 || id[job.size()] != '_') return std::nullopt;
  return to_index(id.substr(job.size() + 1));
}

TaskState make_state(int64_t index, std::string state, std::string node, std::string exit_code) {
  // "CANCELLED by 0" -> "CANCELLED": the phase and the report want the word.
  state = state.substr(0, state.find(' '));
  if (node == "None assigned" || node == "(null)") node.clear();
  TaskState t{index, std::move(state), std::move(node), std::move(exit_code)};
  t.phase = phase_of(t.state, t.exit_code);
  return t;
}

// sbatch splits an #SBATCH line at spaces unless they are quoted: --comment=two words -> --comment="two words".
std::string sbatch_word(const std::string& w) {
  if (w.find_first_of(" \t") == std::string::npos) return w;
  const auto eq = w.find('=');
  return eq == std::string::npos ? "\"" + w + "\"" : w.substr(0, eq + 1) + "\"" + w.substr(eq + 1) + "\"";
}

}  // namespace

std::vector<std::string> split_sbatch_options(const std::string& text) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (quote) throw UsageError("--slurm-opt '" + text + "': a quote is not closed");
  if (in_word) words.push_back(cur);
  for (const auto& w : words) {
    if (w.empty() || w[0] != '-')
      throw UsageError("--slurm-opt: '" + w + "' is not an sbatch option (give options as sbatch spells them: "
                       "--slurm-opt \"--partition=cpu --time=1:00:00\")");
    if (w.find('\n') != std::string::npos) throw UsageError("--slurm-opt: an option may not span lines");
  }
  return words;
}

std::string sbatch_script(const FleetPlan& plan, const SlurmOptions& o) {
  const TaskVars vars{"$SLURM_ARRAY_TASK_ID", "${SLURM_RESTART_COUNT:-0}", "${SLURMD_NODENAME:-$(hostname)}",
                      "$SLURM_ARRAY_JOB_ID", "slurm_job"};
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# rooflens fleet " << plan.fleet_id << ": `rooflens " << plan.command << "` as " << plan.tasks
    << " Slurm array tasks" << (plan.sharded ? ", one shard of the models each" : ", each on its own machine") << ".\n"
    << "# Written by rooflens " << rooflens_commit() << ". Submit it with `sbatch FILE`; read the results back with\n"
    << "# `rooflens history --fleet " << plan.fleet_id << "` (docs/fleet.md). No password is in this file: the\n"
    << "# tasks read PGPASSFILE / ~/.pgpass, or the environment sbatch passes on.\n"
    << "#SBATCH --job-name=rooflens-" << plan.command << "\n"
    << "#SBATCH --array=0-" << plan.tasks - 1 << "\n"
    << "#SBATCH --output=" << o.log_dir << "/task-%a.log\n"
    << "#SBATCH --open-mode=append\n"  // a requeued task's attempts follow each other in one log
    << "#SBATCH --requeue\n"
    << "#SBATCH --chdir=" << plan.workdir << "\n";
  if (o.exclusive) s << "#SBATCH --exclusive\n";
  for (const auto& w : o.sbatch) s << "#SBATCH " << sbatch_word(w) << "\n";
  if (!plan.task_args.empty()) {  // each task's own words (a grid point), by its index
    s << "case \"$SLURM_ARRAY_TASK_ID\" in\n";
    for (size_t i = 0; i < plan.task_args.size(); ++i) {
      s << "  " << i << ") set --";
      for (const auto& w : plan.task_args[i]) s << " " << shell_quote(w);
      s << " ;;\n";
    }
    s << "  *) echo \"rooflens fleet " << plan.fleet_id << ": no task $SLURM_ARRAY_TASK_ID\" >&2; exit 2 ;;\nesac\n";
  }
  s << "set -u\n"
    << "echo \"rooflens fleet " << plan.fleet_id << ": task $SLURM_ARRAY_TASK_ID, attempt ${SLURM_RESTART_COUNT:-0}, "
    << "on ${SLURMD_NODENAME:-$(hostname)}, at $(date -u +%Y-%m-%dT%H:%M:%SZ)\"\n"
    << "exec " << shell_line(task_words(plan, vars)) << "\n";
  return s.str();
}

std::optional<std::string> parsable_job_id(const std::string& out) {
  std::string first = out.substr(0, out.find('\n'));
  first = first.substr(0, first.find(';'));
  while (!first.empty() && (first.back() == '\r' || first.back() == ' ')) first.pop_back();
  if (first.empty() || !to_index(first)) return std::nullopt;
  return first;
}

TaskPhase phase_of(const std::string& state_text, const std::string& exit_code) {
  const std::string state = state_text.substr(0, state_text.find(' '));
  if (state == "COMPLETED") return exit_code.empty() || exit_code == "0:0" ? TaskPhase::done : TaskPhase::failed;
  static const char* const failed[] = {"FAILED",    "CANCELLED", "TIMEOUT",   "NODE_FAIL", "OUT_OF_MEMORY",
                                       "PREEMPTED", "BOOT_FAIL", "DEADLINE",  "REVOKED",   "SPECIAL_EXIT",
                                       "UNKNOWN"};
  for (const char* f : failed)
    if (state == f) return TaskPhase::failed;
  static const char* const running[] = {"RUNNING", "COMPLETING", "CONFIGURING", "SIGNALING", "STAGE_OUT", "SUSPENDED",
                                        "STOPPED", "RESIZING"};
  for (const char* r : running)
    if (state == r) return TaskPhase::running;
  return TaskPhase::pending;  // PENDING, REQUEUED, REQUEUE_HOLD, REQUEUE_FED, RESV_DEL_HOLD ...
}

std::vector<TaskState> parse_squeue(const std::string& text, const std::string& job) {
  std::vector<TaskState> out;
  for (const auto& line : lines_of(text)) {
    auto f = split(line, '|');
    if (f.size() < 3) continue;
    if (auto i = array_index(f[0], job)) out.push_back(make_state(*i, f[1], f[2], ""));
  }
  return out;
}

std::vector<TaskState> parse_sacct(const std::string& text, const std::string& job) {
  std::vector<TaskState> out;
  for (const auto& line : lines_of(text)) {
    auto f = split(line, '|');
    if (f.size() < 4) continue;
    if (auto i = array_index(f[0], job)) out.push_back(make_state(*i, f[1], f[2], f[3]));
  }
  return out;
}

std::vector<TaskState> parse_scontrol(const std::string& text, const std::string& job) {
  std::vector<TaskState> out;
  for (const auto& line : lines_of(text)) {
    std::map<std::string, std::string> kv;
    for (const auto& word : split(line, ' ')) {
      auto eq = word.find('=');
      if (eq != std::string::npos) kv.emplace(word.substr(0, eq), word.substr(eq + 1));
    }
    if (kv["ArrayJobId"] != job) continue;
    if (auto i = to_index(kv["ArrayTaskId"])) out.push_back(make_state(*i, kv["JobState"], kv["NodeList"], kv["ExitCode"]));
  }
  return out;
}

std::vector<TaskState> merge_states(int64_t tasks, const std::vector<TaskState>& live,
                                    const std::vector<TaskState>& ended, bool all_ended) {
  std::vector<TaskState> out(static_cast<size_t>(std::max<int64_t>(tasks, 0)));
  for (int64_t i = 0; i < tasks; ++i) out[static_cast<size_t>(i)] = make_state(i, all_ended ? "UNKNOWN" : "PENDING", "", "");
  auto put = [&](const std::vector<TaskState>& from) {
    for (const auto& t : from)
      if (t.index >= 0 && t.index < tasks) out[static_cast<size_t>(t.index)] = t;
  };
  put(ended);
  put(live);  // squeue is the present: a requeued task sacct still shows as ended is pending again
  return out;
}

PhaseCounts count_phases(const std::vector<TaskState>& tasks) {
  PhaseCounts c;
  for (const auto& t : tasks) {
    switch (t.phase) {
      case TaskPhase::pending: ++c.pending; break;
      case TaskPhase::running: ++c.running; break;
      case TaskPhase::done: ++c.done; break;
      case TaskPhase::failed: ++c.failed; break;
    }
  }
  return c;
}

}  // namespace rooflens::fleet
