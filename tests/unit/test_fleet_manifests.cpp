// The Kubernetes Indexed Job and the GitHub Actions workflow rooflens writes for a fleet (src/fleet/kubernetes.h,
// github_actions.h): what each refuses, and the task line each holds, run through a real /bin/sh with the
// variables the scheduler sets, down to the argv rooflens would get. (The files against the schedulers' own
// schemas: tests/integration/test_fleet_schemas.cpp.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/errors.h"
#include "fleet/github_actions.h"
#include "fleet/kubernetes.h"
#include "fleet/manifest_text.h"
#include "support/fleet_plans.h"

namespace {

namespace fs = std::filesystem;
using rooflens::UsageError;
// Names one by one, not whole namespaces: this file shares a unity batch with others (fleet::shell_quote would meet
// testing::shell_quote there).
using rooflens::fleet::ActionsOptions;
using rooflens::fleet::actions_matrix_workflow;
using rooflens::fleet::escape_kubernetes_expansion;
using rooflens::fleet::FleetPlan;
using rooflens::fleet::indexed_job_manifest;
using rooflens::fleet::kubernetes_job_name;
using rooflens::fleet::KubernetesOptions;
using rooflens::fleet::yaml_string;
using rooflens::fleet::yaml_strings;
using rooflens::testing::argv_after_shell;
using rooflens::testing::argv_printer;
using rooflens::testing::kubernetes_expand;
using rooflens::testing::sharded_bench_plan;
using rooflens::testing::unsharded_score_plan;

// The value after "KEY: " on the first line holding it: the manifests write such values as JSON (a string, or a
// flow sequence of strings), which is how YAML reads them too.
nlohmann::json manifest_value(const std::string& text, const std::string& key) {
  const auto at = text.find(key + ": ");
  if (at == std::string::npos) return nullptr;
  const auto start = at + key.size() + 2;
  return nlohmann::json::parse(text.substr(start, text.find('\n', start) - start));
}

std::string usage_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no UsageError)";
}

// What a task of `plan` must hand rooflens: the user's arguments as given, then its part and its tags.
std::vector<std::string> expected_bench_task_2(const FleetPlan& p, const std::string& scheduler,
                                               const std::string& attempt,
                                               const std::vector<std::string>& scheduler_tags) {
  std::vector<std::string> a{"bench", "--models", "my models/it's \"quoted\"", "--filter", "a: b # c", "--repeat", "3",
                             "--shard=3/4", "--output=out dir/task-2-attempt-" + attempt, "--db=" + p.db_url};
  for (const auto& t : p.tags) a.push_back("--tag=" + t);
  a.insert(a.end(), {"--commit=abc123", "--tag=fleet=" + p.fleet_id, "--tag=scheduler=" + scheduler, "--tag=task=2",
                     "--tag=attempt=" + attempt});
  a.insert(a.end(), scheduler_tags.begin(), scheduler_tags.end());
  return a;
}

class FleetManifestLine : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rooflens-fleet-line-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    printer_ = argv_printer(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string printer_;
};

TEST_F(FleetManifestLine, AKubernetesPodRunsItsShardWithEveryArgumentIntact) {
  const FleetPlan plan = sharded_bench_plan();
  KubernetesOptions o;
  o.image = "registry.example/rooflens:1";
  o.rooflens = printer_;
  const nlohmann::json command = manifest_value(indexed_job_manifest(plan, o), "command");
  ASSERT_EQ(command.size(), 3u);
  EXPECT_EQ(command[0], "/bin/sh");
  EXPECT_EQ(command[1], "-c");
  // The pod's environment as Kubernetes builds it, a password included: $(PGPASSWORD) in a tag must stay text.
  const std::map<std::string, std::string> env{{"JOB_COMPLETION_INDEX", "2"}, {"ROOFLENS_NODE", "node-a"},
                                               {"PGPASSWORD", "s3cret"}, {"HOME", "/root"}};
  std::vector<std::string> sh_env;
  for (const auto& [k, v] : env) sh_env.push_back(k + "=" + v);
  const std::string line = kubernetes_expand(command[2].get<std::string>(), env);
  const std::string job = kubernetes_job_name(plan, o);
  EXPECT_EQ(argv_after_shell(line, sh_env, dir_),
            expected_bench_task_2(plan, "kubernetes", "0", {"--tag=node=node-a", "--tag=k8s_job=" + job}));
  // A rerun of index 2: the Job controller's failure count for it, through the downward API.
  sh_env.push_back("ROOFLENS_ATTEMPT=1");
  EXPECT_EQ(argv_after_shell(line, sh_env, dir_),
            expected_bench_task_2(plan, "kubernetes", "1", {"--tag=node=node-a", "--tag=k8s_job=" + job}));
}

// An -o path holding what the task's shell or Kubernetes would read (" $ ` \\ ' and $(VAR)) reaches rooflens as
// written, beside the task's index: the user's text is quoted on its own, only the index is expanded.
TEST_F(FleetManifestLine, AnOutputPathOfShellCharactersArrivesAsWritten) {
  FleetPlan plan = unsharded_score_plan();
  KubernetesOptions o;
  o.image = "registry.example/rooflens:1";
  o.rooflens = printer_;
  for (const std::string out : {"a\"b.json", "$HOME/s.json", "`id`.json", "a\\b.json", "it's $(PGPASSWORD).json"}) {
    plan.output = out;
    const nlohmann::json command = manifest_value(indexed_job_manifest(plan, o), "command");
    const std::map<std::string, std::string> env{{"JOB_COMPLETION_INDEX", "1"}, {"PGPASSWORD", "s3cret"}, {"HOME", "/root"}};
    std::vector<std::string> sh_env;
    for (const auto& [k, v] : env) sh_env.push_back(k + "=" + v);
    const auto args = argv_after_shell(kubernetes_expand(command[2].get<std::string>(), env), sh_env, dir_);
    const auto dot = out.rfind('.');
    const std::string want = "--output=" + out.substr(0, dot) + "-task-1-attempt-0" + out.substr(dot);
    EXPECT_NE(std::find(args.begin(), args.end(), want), args.end()) << out;
  }
}

TEST_F(FleetManifestLine, AnActionsLegRunsItsShardWithEveryArgumentIntact) {
  const FleetPlan plan = sharded_bench_plan();
  ActionsOptions o;
  o.rooflens = printer_;
  const std::string run = manifest_value(actions_matrix_workflow(plan, o), "run").get<std::string>();
  // The step's environment: ROOFLENS_TASK from the matrix, the rest GitHub's default variables.
  const std::vector<std::string> env{"ROOFLENS_TASK=2", "GITHUB_RUN_ATTEMPT=2", "RUNNER_NAME=bench box 1",
                                     "GITHUB_RUN_ID=987654", "HOME=/home/runner"};
  EXPECT_EQ(argv_after_shell(run, env, dir_),
            expected_bench_task_2(plan, "github-actions", "1",
                                  {"--tag=node=bench box 1", "--tag=actions_run=987654"}));
}

TEST_F(FleetManifestLine, UnshardedScoreTasksWriteOneFileEach) {
  const FleetPlan plan = unsharded_score_plan();
  ActionsOptions o;
  o.rooflens = printer_;
  const std::string run = manifest_value(actions_matrix_workflow(plan, o), "run").get<std::string>();
  const auto args =
      argv_after_shell(run, {"ROOFLENS_TASK=1", "GITHUB_RUN_ATTEMPT=3", "RUNNER_NAME=r", "GITHUB_RUN_ID=5"}, dir_);
  ASSERT_GE(args.size(), 5u);
  EXPECT_EQ(std::vector<std::string>(args.begin(), args.begin() + 5),
            (std::vector<std::string>{"score", "--suite", "v2", "--output=score-task-1-attempt-2.json",
                                      "--db=" + plan.db_url}));
  for (const auto& a : args) EXPECT_EQ(a.rfind("--shard", 0), std::string::npos) << a;
  EXPECT_NE(std::find(args.begin(), args.end(), "--tag=attempt=2"), args.end());
}

TEST(FleetManifests, KubernetesDollarsAreEscapedForItsOwnExpansion) {
  EXPECT_EQ(escape_kubernetes_expansion("a $(B) $$ c"), "a $$(B) $$$$ c");
  EXPECT_EQ(kubernetes_expand(escape_kubernetes_expansion("x $(PGPASSWORD) $$ $HOME"), {{"PGPASSWORD", "s"}}),
            "x $(PGPASSWORD) $$ $HOME");
  // Which is needed: unescaped, Kubernetes itself would put the password into the command line.
  EXPECT_EQ(kubernetes_expand("x $(PGPASSWORD)", {{"PGPASSWORD", "s"}}), "x s");
}

TEST(FleetManifests, TheKubernetesJobNeedsAnImage) {
  const std::string e = usage_error_of([] { indexed_job_manifest(sharded_bench_plan(), KubernetesOptions{}); });
  EXPECT_NE(e.find("--k8s-image"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(FleetManifests, TheJobNameComesFromTheFleetIdAndLeavesRoomForTheIndex) {
  FleetPlan plan = sharded_bench_plan();
  EXPECT_EQ(kubernetes_job_name(plan, {}), "rooflens-bench-20261129t001500z-a1b2");
  plan.fleet_id = std::string(80, 'X') + "_y";
  plan.tasks = 1000;
  const std::string name = kubernetes_job_name(plan, {});
  EXPECT_EQ(name.size(), 63u - 1 - 3);  // "-999" still fits a DNS label
  KubernetesOptions o;
  o.image = "i";
  EXPECT_NO_THROW(indexed_job_manifest(plan, o));
  o.name = "Not_A_Label";
  EXPECT_NE(usage_error_of([&] { indexed_job_manifest(plan, o); }).find("Not_A_Label"), std::string::npos);
}

TEST(FleetManifests, NamesKubernetesWouldRefuseAreRefusedHere) {
  KubernetesOptions o;
  o.image = "i";
  for (auto bad : std::vector<std::function<void(KubernetesOptions&)>>{
           [](auto& k) { k.namespace_name = "Bad NS"; }, [](auto& k) { k.secret = "db\n# injected"; },
           [](auto& k) { k.secret_key = "pass word"; }, [](auto& k) { k.cpu = "four"; }}) {
    KubernetesOptions b = o;
    bad(b);
    EXPECT_NE(usage_error_of([&] { indexed_job_manifest(sharded_bench_plan(), b); }), "(no UsageError)");
  }
}

TEST(FleetManifests, NoPasswordGoesIntoEitherFile) {
  FleetPlan plan = sharded_bench_plan();
  KubernetesOptions k;
  k.image = "i";
  const std::string job = indexed_job_manifest(plan, k), workflow = actions_matrix_workflow(plan, {});
  EXPECT_NE(job.find("secretKeyRef:"), std::string::npos);
  EXPECT_NE(workflow.find("PGPASSWORD: \"${{ secrets.ROOFLENS_DB_PASSWORD }}\""), std::string::npos);
  plan.db_url = "postgresql://bench:hunter2@db.example/rooflens";
  EXPECT_NE(usage_error_of([&] { indexed_job_manifest(plan, k); }).find("PGPASSFILE"), std::string::npos);
  EXPECT_NE(usage_error_of([&] { actions_matrix_workflow(plan, {}); }).find("PGPASSFILE"), std::string::npos);
}

TEST(FleetManifests, AnSQLiteFleetAsksForNoSecret) {
  FleetPlan plan = sharded_bench_plan();
  plan.db_url = "sqlite:results.db";
  KubernetesOptions k;
  k.image = "i";
  EXPECT_EQ(indexed_job_manifest(plan, k).find("name: \"PGPASSWORD\""), std::string::npos);
  EXPECT_EQ(indexed_job_manifest(plan, k).find("secretKeyRef"), std::string::npos);
  EXPECT_EQ(actions_matrix_workflow(plan, {}).find("PGPASSWORD:"), std::string::npos);
  EXPECT_EQ(actions_matrix_workflow(plan, {}).find("secrets."), std::string::npos);
}

TEST(FleetManifests, GithubWouldEvaluateExpressionsInUserTextSoTheyAreRefused) {
  FleetPlan plan = sharded_bench_plan();
  plan.tags.push_back("x=${{ secrets.OTHER }}");
  EXPECT_NE(usage_error_of([&] { actions_matrix_workflow(plan, {}); }).find("${{"), std::string::npos);
  ActionsOptions o;
  o.runs_on = {"self-hosted", "${{ github.actor }}"};
  EXPECT_NE(usage_error_of([&] { actions_matrix_workflow(sharded_bench_plan(), o); }), "(no UsageError)");
}

TEST(FleetManifests, AMatrixHoldsAtMost256Legs) {
  FleetPlan plan = sharded_bench_plan();
  plan.tasks = 256;
  EXPECT_NO_THROW(actions_matrix_workflow(plan, {}));
  plan.tasks = 257;
  EXPECT_NE(usage_error_of([&] { actions_matrix_workflow(plan, {}); }).find("256"), std::string::npos);
  ActionsOptions o;
  o.secret = "GITHUB_TOKEN";
  EXPECT_NE(usage_error_of([&] { actions_matrix_workflow(sharded_bench_plan(), o); }), "(no UsageError)");
}

TEST(FleetManifests, EveryStringIsAQuotedScalar) {
  EXPECT_EQ(yaml_string("yes"), "\"yes\"");  // YAML 1.1 readers would take a plain yes for true
  EXPECT_EQ(yaml_string("a: b # c"), "\"a: b # c\"");
  EXPECT_EQ(yaml_string("it's \"x\"\\\n"), R"("it's \"x\"\\\n")");
  EXPECT_EQ(yaml_string("caf\xc3\xa9 \xc2\x85"), "\"caf\xc3\xa9 \\u0085\"");  // UTF-8 kept, a C1 control escaped
  EXPECT_EQ(yaml_strings({"/bin/sh", "-c"}), R"(["/bin/sh", "-c"])");
}

TEST(FleetManifests, TextThatIsNotUtf8IsRefusedNotWrittenBroken) {
  FleetPlan plan = sharded_bench_plan();
  plan.args.push_back("caf\xe9");
  KubernetesOptions k;
  k.image = "i";
  EXPECT_NE(usage_error_of([&] { indexed_job_manifest(plan, k); }).find("UTF-8"), std::string::npos);
}

}  // namespace

namespace {

// Tasks with words of their own (capacity's grid points) are Slurm's: the manifests say so instead of writing
// every pod the same configuration.
TEST(FleetManifests, AGridOfTasksIsRefusedOutsideSlurm) {
  FleetPlan plan = rooflens::testing::unsharded_score_plan();
  plan.task_args = {{"--instances=1"}, {"--instances=2"}};
  plan.tasks = 2;
  rooflens::fleet::KubernetesOptions k;
  k.image = "i";
  EXPECT_THROW(rooflens::fleet::indexed_job_manifest(plan, k), rooflens::UsageError);
  EXPECT_THROW(rooflens::fleet::actions_matrix_workflow(plan, {}), rooflens::UsageError);
}

}  // namespace
