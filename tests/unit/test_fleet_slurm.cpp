// The Slurm side of a fleet without a Slurm: the script (checked by bash itself) and the parsers of what squeue,
// sacct and scontrol print. The scontrol line is one Slurm 22.05 printed for an array task on this project's test
// cluster; the squeue and sacct lines follow the formats rooflens asks for (-o "%i|%T|%N", -P with its fields).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "fleet/plan.h"
#include "fleet/slurm.h"

namespace rooflens::fleet {
namespace {

namespace fs = std::filesystem;

std::string run_shell(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  char buf[4096];
  while (p && std::fgets(buf, sizeof buf, p)) out += buf;
  if (p) ::pclose(p);
  return out;
}

FleetPlan bench_plan() {
  FleetPlan p;
  p.command = "bench";
  p.args = {"models dir/", "--filter=^test_(a|b)$", "--tag-like='quoted'"};
  p.tasks = 4;
  p.rooflens = "/opt/rooflens/bin/rooflens";
  p.workdir = "/shared/work";
  p.db_url = "postgresql://ci@db/perf";
  p.fleet_id = "bench-20261129T001500Z-a1b2";
  p.tags = {"team=perf lab"};
  p.output = "/shared/out";
  p.scheduler = "slurm";
  return p;
}

TEST(SlurmScript, TheScriptIsValidBashAndEachTaskGetsItsShardAndTags) {
  SlurmOptions o;
  o.sbatch = split_sbatch_options("--partition=cpu --time=1:00:00 --comment='two words'");
  o.log_dir = "/shared/logs";
  const std::string script = sbatch_script(bench_plan(), o);
  EXPECT_NE(script.find("#SBATCH --array=0-3\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --partition=cpu\n"), std::string::npos);
  EXPECT_NE(script.find("#SBATCH --comment=\"two words\"\n"), std::string::npos) << "sbatch splits #SBATCH lines at spaces";
  EXPECT_NE(script.find("#SBATCH --exclusive\n"), std::string::npos);
  EXPECT_NE(script.find("#SBATCH --output=/shared/logs/task-%a.log\n"), std::string::npos);
  const fs::path file = fs::temp_directory_path() / ("rooflens-fleet-script-" + std::to_string(::getpid()) + ".sh");
  { std::ofstream(file) << script; }
  EXPECT_EQ(run_shell("bash -n " + file.string() + " 2>&1 && echo syntax-ok"), "syntax-ok\n");
  // Run the script as Slurm would for task 2, attempt 1, with the exec printing the argv one word per line instead.
  std::string printing = script;
  printing.replace(printing.find("\nexec "), 6, "\nprintf '%s\\n' ");
  { std::ofstream(file) << printing; }
  const std::string argv = run_shell("SLURM_ARRAY_TASK_ID=2 SLURM_RESTART_COUNT=1 SLURMD_NODENAME=n7 SLURM_ARRAY_JOB_ID=99 "
                                     "bash " + file.string());
  fs::remove(file);
  for (const char* word : {"models dir/\n", "--filter=^test_(a|b)$\n", "--tag-like='quoted'\n", "--shard=3/4\n",
                           "--output=/shared/out/task-2-attempt-1\n", "--db=postgresql://ci@db/perf\n",
                           "--tag=team=perf lab\n", "--tag=fleet=bench-20261129T001500Z-a1b2\n", "--tag=task=2\n",
                           "--tag=attempt=1\n", "--tag=node=n7\n", "--tag=slurm_job=99\n", "--tag=scheduler=slurm\n"})
    EXPECT_NE(argv.find(word), std::string::npos) << word << " not in\n" << argv;
}

TEST(SlurmScript, AnOutputPathOfShellCharactersArrivesAsWritten) {
  FleetPlan p = bench_plan();
  p.output = "/shared/o u\"t$HOME`id`\\z'q";
  const std::string line = shell_line(task_words(p, {"$I", "$A", "", "", ""}));
  const std::string argv = run_shell("I=2 A=1 HOME=/root bash -c " + shell_quote("printf '%s\\n' " + line));
  EXPECT_NE(argv.find("--output=/shared/o u\"t$HOME`id`\\z'q/task-2-attempt-1\n"), std::string::npos) << argv;
}

TEST(SlurmScript, EachTaskOfAGridGetsItsOwnWords) {
  FleetPlan p = bench_plan();
  p.command = "capacity";
  p.sharded = false;
  p.output = "";
  p.task_args = {{"--instances=1", "--threads=2"}, {"--instances=2", "--threads=1"}};
  p.tasks = 2;
  SlurmOptions o;
  o.log_dir = "/shared/logs";
  std::string script = sbatch_script(p, o);
  script.replace(script.find("\nexec "), 6, "\nprintf '%s\\n' ");
  const fs::path file = fs::temp_directory_path() / ("rooflens-fleet-grid-" + std::to_string(::getpid()) + ".sh");
  for (int task : {0, 1}) {
    { std::ofstream(file) << script; }
    const std::string argv = run_shell("SLURM_ARRAY_JOB_ID=9 SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " bash " + file.string());
    const std::string want = task == 0 ? "\n--instances=1\n--threads=2\n" : "\n--instances=2\n--threads=1\n";
    EXPECT_NE(argv.find(want), std::string::npos) << argv;
  }
  { std::ofstream(file) << script; }
  EXPECT_NE(run_shell("SLURM_ARRAY_TASK_ID=7 bash " + file.string() + " 2>&1; echo rc=$?").find("rc=2"), std::string::npos)
      << "an index outside the grid runs nothing";
  fs::remove(file);
}

TEST(SlurmScript, AScoreTaskRunsWholeAndWritesItsOwnFile) {
  FleetPlan p = bench_plan();
  p.command = "score";
  p.sharded = false;
  p.output = "/shared/score.json";
  const std::string line = shell_line(task_words(p, {"$I", "$A", "", "", ""}));
  EXPECT_EQ(line.find("--shard"), std::string::npos) << line;
  const std::string argv = run_shell("I=1 A=0 bash -c " + shell_quote("printf '%s\\n' " + line));
  EXPECT_NE(argv.find("\n--output=/shared/score-task-1-attempt-0.json\n"), std::string::npos) << argv;
}

TEST(SlurmScript, SbatchOptionsAreSbatchsOwnWords) {
  EXPECT_THROW(split_sbatch_options("partition=cpu"), UsageError);
  EXPECT_THROW(split_sbatch_options("--comment='open"), UsageError);
  EXPECT_TRUE(split_sbatch_options("  ").empty());
}

TEST(SlurmScript, APasswordInTheDatabaseUrlIsRefused) {
  EXPECT_THROW(check_db_url("postgresql://ci:hunter2@db/perf"), UsageError);
  EXPECT_THROW(check_db_url("postgresql://ci@db/perf?password=hunter2"), UsageError);
  EXPECT_NO_THROW(check_db_url("postgresql://ci@db/perf"));
  EXPECT_NO_THROW(check_db_url("/shared/results.db"));
}

TEST(SlurmScript, JobIdFromSbatchParsable) {
  EXPECT_EQ(parsable_job_id("123\n").value_or(""), "123");
  EXPECT_EQ(parsable_job_id("77;cluster-a\n").value_or(""), "77");
  EXPECT_FALSE(parsable_job_id("sbatch: error: Batch job submission failed").has_value());
  EXPECT_FALSE(parsable_job_id("").has_value());
}

TEST(SlurmScript, SqueueSacctAndScontrolLinesBecomeTaskStates) {
  auto live = parse_squeue("12_0|RUNNING|node1\n12_1|PENDING|\n13_0|RUNNING|node2\n12_[2-3]|PENDING|\n", "12");
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(live[0].phase, TaskPhase::running);
  EXPECT_EQ(live[0].node, "node1");
  EXPECT_EQ(live[1].phase, TaskPhase::pending);

  auto ended = parse_sacct("12_0|COMPLETED|node1|0:0\n12_1|CANCELLED by 0|node2|0:15\n12_2|COMPLETED|node1|1:0\n"
                           "12_3|TIMEOUT|node3|0:0\n12_3.batch|TIMEOUT|node3|0:15\n", "12");
  ASSERT_EQ(ended.size(), 4u);
  EXPECT_EQ(ended[0].phase, TaskPhase::done);
  EXPECT_EQ(ended[1].state, "CANCELLED");
  EXPECT_EQ(ended[1].phase, TaskPhase::failed);
  EXPECT_EQ(ended[2].phase, TaskPhase::failed) << "COMPLETED with a non-zero exit code is a failure";
  EXPECT_EQ(ended[3].phase, TaskPhase::failed);

  const std::string scontrol =
      "JobId=4 ArrayJobId=1 ArrayTaskId=2 JobName=job.sh UserId=root(0) GroupId=root(0) MCS_label=N/A "
      "Priority=4294901759 Nice=0 Account=(null) QOS=(null) JobState=COMPLETED Reason=None Dependency=(null) Requeue=1 "
      "Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:02 TimeLimit=UNLIMITED TimeMin=N/A "
      "SubmitTime=2026-11-29T00:08:08 NodeList=localhost BatchHost=localhost NumNodes=1 NumCPUs=1 "
      "StdOut=/tmp/sl/out-1_2.log Power= \n";
  auto sc = parse_scontrol(scontrol, "1");
  ASSERT_EQ(sc.size(), 1u);
  EXPECT_EQ(sc[0].index, 2);
  EXPECT_EQ(sc[0].node, "localhost");
  EXPECT_EQ(sc[0].phase, TaskPhase::done);
  EXPECT_TRUE(parse_scontrol(scontrol, "11").empty()) << "another job's task";
}

TEST(SlurmScript, TheQueueIsThePresentAndNothingWaitsForEver) {
  // Task 1 ended (sacct) but was requeued (squeue lists it pending): pending it is.
  auto m = merge_states(3, parse_squeue("5_1|PENDING|\n", "5"),
                        parse_sacct("5_0|COMPLETED|n|0:0\n5_1|COMPLETED|n|0:0\n", "5"), false);
  auto c = count_phases(m);
  EXPECT_EQ(c.done, 1);
  EXPECT_EQ(c.pending, 2) << "task 1 requeued, task 2 not listed yet";
  EXPECT_FALSE(c.finished());
  // Nothing listed any more and nothing to say how it ended: failed as UNKNOWN, finished.
  auto gone = count_phases(merge_states(3, {}, parse_sacct("5_0|COMPLETED|n|0:0\n", "5"), true));
  EXPECT_EQ(gone.failed, 2);
  EXPECT_TRUE(gone.finished());
}

TEST(FleetPlan, ShellQuotingSurvivesTheShell) {
  for (const std::string s : {"plain", "two words", "it's", "$HOME", "a\"b", "`id`", "", "tab\there"}) {
    EXPECT_EQ(run_shell("printf '%s' " + shell_quote(s)), s) << s;
  }
  EXPECT_NE(new_fleet_id("bench"), new_fleet_id("bench"));
  EXPECT_EQ(new_fleet_id("score").rfind("score-", 0), 0u);
}

}  // namespace
}  // namespace rooflens::fleet
