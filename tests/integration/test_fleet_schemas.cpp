// The files rooflens writes for other schedulers, checked offline by those schedulers' own validators
// (tests/schemas/validate.mjs: kubernetes-models' batch/v1 Job schema, GitHub's @actions/workflow-parser), for a
// few plans; then the fields rooflens relies on, read back through the validator's YAML reader; and broken copies,
// which the validators must refuse, so a pass means something.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleet/github_actions.h"
#include "fleet/kubernetes.h"
#include "support/fleet_plans.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
// Names one by one, not whole namespaces: this file shares a unity batch with others (fleet::shell_quote would meet
// testing::shell_quote there).
using rooflens::fleet::ActionsOptions;
using rooflens::fleet::actions_matrix_workflow;
using rooflens::fleet::FleetPlan;
using rooflens::fleet::indexed_job_manifest;
using rooflens::fleet::KubernetesOptions;
using rooflens::testing::ArgvResult;
using rooflens::testing::argv_after_shell;
using rooflens::testing::argv_printer;
using rooflens::testing::kubernetes_expand;
using rooflens::testing::run_argv;
using rooflens::testing::sharded_bench_plan;
using rooflens::testing::unsharded_score_plan;

const fs::path kSchemas = fs::path(ROOFLENS_SOURCE_DIR) / "tests" / "schemas";

// node from PATH, as the other tests find it: run_argv execs a path, with no shell to search for it.
std::string node_binary() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin";
  for (size_t start = 0; start <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / "node";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return "/usr/bin/node";
}

class FleetSchemas : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kSchemas / "node_modules" / "kubernetes-models"))
        << "the validators are not installed: scripts/install-deps.sh test (npm ci in tests/schemas)";
    dir_ = fs::temp_directory_path() / ("rooflens-fleet-schemas-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The validator's verdict on `text` as a file of `kind`: its output is the document as JSON when valid.
  ArgvResult validate(const std::string& kind, const std::string& text, const std::string& name) {
    const fs::path file = dir_ / name;
    std::ofstream(file, std::ios::binary) << text;
    return run_argv({node_binary(), (kSchemas / "validate.mjs").string(), kind, file.string()}, {}, dir_.string());
  }
  json valid(const std::string& kind, const std::string& text, const std::string& name) {
    const ArgvResult r = validate(kind, text, name);
    EXPECT_EQ(r.rc, 0) << r.err << "\n" << text;
    return r.rc == 0 ? json::parse(r.out) : json();
  }
  fs::path dir_;
};

KubernetesOptions k8s_options() {
  KubernetesOptions o;
  o.image = "registry.example/rooflens:1.2";
  o.cpu = "4";
  o.memory = "8Gi";
  return o;
}

// `text` with its first `from` made `to`.
std::string broken_copy(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// The environment variable `name` of the container, as Kubernetes reads it.
json container_env(const json& job, const std::string& name) {
  for (const json& e : job["spec"]["template"]["spec"]["containers"][0]["env"])
    if (e["name"] == name) return e;
  return nullptr;
}

TEST_F(FleetSchemas, AShardedBenchIsAValidIndexedJob) {
  const FleetPlan plan = sharded_bench_plan();
  const json job = valid("kubernetes-job", indexed_job_manifest(plan, k8s_options()), "bench.yaml");
  ASSERT_TRUE(job.is_object());
  EXPECT_EQ(job["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(job["spec"]["completions"], 4);
  EXPECT_EQ(job["spec"]["parallelism"], 4);
  EXPECT_EQ(job["spec"]["backoffLimitPerIndex"], 1);
  const json& pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["restartPolicy"], "Never");
  EXPECT_EQ(pod["containers"][0]["image"], "registry.example/rooflens:1.2");
  EXPECT_EQ(pod["containers"][0]["resources"]["limits"]["cpu"], "4");
  EXPECT_EQ(container_env(job, "PGPASSWORD")["valueFrom"]["secretKeyRef"],
            (json{{"name", "rooflens-db"}, {"key", "password"}}));
  EXPECT_EQ(container_env(job, "ROOFLENS_NODE")["valueFrom"]["fieldRef"]["fieldPath"], "spec.nodeName");
  EXPECT_EQ(job["metadata"]["annotations"]["rooflens-fleet"], plan.fleet_id);

  // The command as the YAML reader gave it, through Kubernetes' expansion and a real shell: the user's words intact.
  const fs::path printer = argv_printer(dir_);
  KubernetesOptions o = k8s_options();
  o.rooflens = printer.string();
  const json printed = valid("kubernetes-job", indexed_job_manifest(plan, o), "printer.yaml");
  const std::string line = kubernetes_expand(printed["spec"]["template"]["spec"]["containers"][0]["command"][2], {});
  const auto args = argv_after_shell(line, {"JOB_COMPLETION_INDEX=3", "ROOFLENS_NODE=n"}, dir_.string());
  ASSERT_GE(args.size(), 13u);
  EXPECT_EQ(args[2], "my models/it's \"quoted\"");
  EXPECT_EQ(args[4], "a: b # c");
  EXPECT_EQ(args[7], "--shard=4/4");
  EXPECT_EQ(args[11], "--tag=note=it's $HOME and $(PGPASSWORD)");
  EXPECT_EQ(args[12], R"(--tag=q=say "hi" \ there)");
}

TEST_F(FleetSchemas, AnUnshardedScoreIsAValidIndexedJob) {
  KubernetesOptions o = k8s_options();
  o.namespace_name = "perf";
  o.parallelism = 1;
  o.secret = "score-db";
  const json job = valid("kubernetes-job", indexed_job_manifest(unsharded_score_plan(), o), "score.yaml");
  ASSERT_TRUE(job.is_object());
  EXPECT_EQ(job["metadata"]["namespace"], "perf");
  EXPECT_EQ(job["spec"]["completions"], 2);
  EXPECT_EQ(job["spec"]["parallelism"], 1);
  EXPECT_EQ(container_env(job, "PGPASSWORD")["valueFrom"]["secretKeyRef"]["name"], "score-db");
}

TEST_F(FleetSchemas, BothPlansAreValidWorkflows) {
  for (const FleetPlan& plan : {sharded_bench_plan(), unsharded_score_plan()}) {
    ActionsOptions o;
    o.runs_on = {"self-hosted", "linux", "bench-box"};
    o.max_parallel = 2;
    o.timeout_minutes = 120;
    o.workdir = "models dir";
    const json wf = valid("github-workflow", actions_matrix_workflow(plan, o), plan.command + ".yml");
    ASSERT_TRUE(wf.is_object());
    EXPECT_TRUE(wf["on"].contains("workflow_dispatch"));
    const json& job = wf["jobs"]["rooflens"];
    EXPECT_EQ(job["runs-on"], (json{"self-hosted", "linux", "bench-box"}));
    EXPECT_EQ(job["strategy"]["fail-fast"], false);
    json indices = json::array();
    for (int64_t i = 0; i < plan.tasks; ++i) indices.push_back(i);
    EXPECT_EQ(job["strategy"]["matrix"]["index"], indices);
    const json& step = job["steps"][0];
    EXPECT_EQ(step["env"]["PGPASSWORD"], "${{ secrets.ROOFLENS_DB_PASSWORD }}");
    EXPECT_EQ(step["env"]["ROOFLENS_TASK"], "${{ matrix.index }}");
    EXPECT_EQ(step["working-directory"], "models dir");
    EXPECT_EQ(step["run"].get<std::string>().find("${{"), std::string::npos);
  }
}

// A validator that passes everything would pass the tests above: these copies are broken in ways each must see.
TEST_F(FleetSchemas, TheValidatorsRefuseBrokenFiles) {
  const std::string job = indexed_job_manifest(sharded_bench_plan(), k8s_options());
  const std::vector<std::pair<std::string, std::string>> bad_jobs{
      {"completions: 4", "completions: \"4\""},              // a string where the schema wants an integer
      {"apiVersion: \"batch/v1\"", "apiVersion: \"batch/v2\""},  // no such API
      {"completionMode: \"Indexed\"", "completionMode: \"Numbered\""},
      {"restartPolicy: \"Never\"", "restartPolicy: \"Always\""},  // not for a Job's pods
      {"  completions: 4\n", ""},                             // an Indexed Job without completions
      {"  parallelism: 4\n", "  parallelism: 4\n  parallelism: 2\n"},  // a key twice
  };
  for (const auto& [from, to] : bad_jobs) {
    const ArgvResult r = validate("kubernetes-job", broken_copy(job, from, to), "broken.yaml");
    EXPECT_EQ(r.rc, 1) << from << " -> " << to << ": " << r.err;
    EXPECT_FALSE(r.err.empty()) << from;
  }
  const std::string wf = actions_matrix_workflow(sharded_bench_plan(), {});
  const std::vector<std::pair<std::string, std::string>> bad_workflows{
      {"runs-on:", "runs_on:"},                                // an unknown key, and runs-on missing
      {"fail-fast: false", "fail-fast: \"no\""},               // not a boolean
      {"${{ matrix.index }}\"\n", "${{ matrix.index + }}\"\n"},  // not an expression
      {"workflow_dispatch: {}", "workflow_dispatched: {}"},    // no such event
  };
  for (const auto& [from, to] : bad_workflows) {
    const ArgvResult r = validate("github-workflow", broken_copy(wf, from, to), "broken.yml");
    EXPECT_EQ(r.rc, 1) << from << " -> " << to << ": " << r.err;
    EXPECT_FALSE(r.err.empty()) << from;
  }
}

}  // namespace

namespace {

// Through the binary: the user's command line becomes the file's task line, and the file is valid.
TEST_F(FleetSchemas, TheCommandLineWritesValidFiles) {
  const std::string bin = ROOFLENS_BINARY;
  const std::string job = (dir_ / "job.yaml").string(), wf = (dir_ / "wf.yml").string();
  ArgvResult k = run_argv({bin, "bench", "zoo/", "--filter", "resnet|bert", "--mode", "both", "--k8s-indexed-job", "4",
                           "--k8s-image", "registry.example/rooflens:1", "--db", "postgresql://ci@db/perf", "--manifest",
                           job},
                          {}, dir_.string());
  ASSERT_EQ(k.rc, 0) << k.err;
  std::ifstream jf(job);
  const std::string job_text((std::istreambuf_iterator<char>(jf)), std::istreambuf_iterator<char>());
  const json j = valid("kubernetes-job", job_text, "from-cli.yaml");
  EXPECT_EQ(j["spec"]["completions"], 4);
  const std::string line = j["spec"]["template"]["spec"]["containers"][0]["command"][2];
  EXPECT_NE(line.find("'--filter=resnet|bert'"), std::string::npos) << line;
  EXPECT_NE(line.find("--shard="), std::string::npos) << line;

  ArgvResult a = run_argv({bin, "score", "--quick", "--actions-matrix", "2", "--db", "postgresql://ci@db/perf",
                           "--manifest", wf},
                          {}, dir_.string());
  ASSERT_EQ(a.rc, 0) << a.err;
  std::ifstream wff(wf);
  const std::string wf_text((std::istreambuf_iterator<char>(wff)), std::istreambuf_iterator<char>());
  const json w = valid("github-workflow", wf_text, "from-cli.yml");
  EXPECT_EQ(w["jobs"]["rooflens"]["strategy"]["matrix"]["index"], json::array({0, 1}));

  // Refused, one line each: no image, two schedulers at once, a password in the URL.
  for (const auto& bad : std::vector<std::vector<std::string>>{
           {bin, "bench", "zoo/", "--k8s-indexed-job", "2", "--db", "postgresql://ci@db/perf"},
           {bin, "bench", "zoo/", "--k8s-indexed-job", "2", "--k8s-image", "i", "--actions-matrix", "2", "--db",
            "postgresql://ci@db/perf"},
           {bin, "bench", "zoo/", "--actions-matrix", "2", "--db", "postgresql://ci:pw@db/perf"}}) {
    ArgvResult r = run_argv(bad, {}, dir_.string());
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
