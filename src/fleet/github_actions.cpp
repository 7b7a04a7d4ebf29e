#include "fleet/github_actions.h"

#include <regex>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/fleet_tags.h"
#include "fleet/manifest_text.h"

namespace rooflens::fleet {
namespace {

constexpr const char* kActionsFlag = "--actions-matrix";
// GitHub's limit: "A matrix will generate a maximum of 256 jobs per workflow run."
constexpr int64_t kActionsMaxTasks = 256;

// GitHub evaluates "${{ ... }}" anywhere in a workflow, before any shell runs: a user's text holding it would run
// as an expression (reading secrets, say). No escape keeps it literal everywhere, so rooflens refuses it.
std::string actions_literal(const std::string& s) {
  if (s.find("${{") != std::string::npos)
    throw UsageError(std::string(kActionsFlag) + ": GitHub Actions would evaluate the '${{' in '" + s +
                     "'; give the text without it");
  return yaml_string(s);
}

void check_actions_options(const ActionsOptions& o) {
  static const std::regex secret("[A-Za-z_][A-Za-z0-9_]*");
  if (!std::regex_match(o.secret, secret) || o.secret.rfind("GITHUB_", 0) == 0)
    throw UsageError(fmt::format("{}: '{}' is not a GitHub secret name (letters, digits, '_'; not GITHUB_...)",
                                 kActionsFlag, o.secret));
  if (o.runs_on.empty()) throw UsageError(std::string(kActionsFlag) + ": runs-on needs at least one runner label");
  if (o.max_parallel < 0 || o.timeout_minutes < 0)
    throw UsageError(std::string(kActionsFlag) + ": max-parallel and timeout-minutes are counts (0 or more)");
}

void actions_header(YamlLines& y, const FleetPlan& plan, const ActionsOptions& o) {
  // Only the checked secret name and rooflens' own words go into comments: a user's text could end one.
  y.line(0, fmt::format("# rooflens {} over {} tasks as a GitHub Actions matrix, written by rooflens (docs/fleet.md).",
                        plan.command, plan.tasks));
  y.line(0, fmt::format("# Leg I (matrix.index, 0..{}) runs task I{}.", plan.tasks - 1,
                        plan.sharded ? fmt::format(": {} --shard I+1/{}", plan.command, plan.tasks) : ""));
  if (stores_in_postgresql(plan))
    y.line(0, fmt::format("# No password in this file: the step reads PGPASSWORD from the secret {}.", o.secret));
  y.line(0, "# Put it under .github/workflows/ and start it from the Actions tab or: gh workflow run FILE_NAME");
}

std::string matrix_indices(int64_t tasks) {
  std::string out = "[";
  for (int64_t i = 0; i < tasks; ++i) out += (i ? ", " : "") + std::to_string(i);
  return out + "]";
}

std::string actions_runs_on(const std::vector<std::string>& labels) {
  for (const std::string& l : labels) actions_literal(l);
  return yaml_strings(labels);
}

void actions_job(YamlLines& y, const FleetPlan& plan, const ActionsOptions& o) {
  y.line(1, "rooflens:");
  y.line(2, "runs-on: " + actions_runs_on(o.runs_on));
  if (o.timeout_minutes > 0) y.line(2, fmt::format("timeout-minutes: {}", o.timeout_minutes));
  y.line(2, "strategy:");
  y.line(3, "fail-fast: false");  // one failing task must not cancel the others' measurements
  if (o.max_parallel > 0) y.line(3, fmt::format("max-parallel: {}", o.max_parallel));
  y.line(3, "matrix:");
  y.line(4, "index: " + matrix_indices(plan.tasks));
}

void actions_step(YamlLines& y, const FleetPlan& plan, const ActionsOptions& o) {
  y.line(2, "steps:");
  y.line(3, fmt::format("- name: \"rooflens {} task ${{{{ matrix.index }}}}\"", plan.command));
  y.line(4, "shell: \"sh\"");  // the line is POSIX sh; the runner runs it as `sh -e FILE`
  if (!o.workdir.empty()) y.line(4, "working-directory: " + actions_literal(o.workdir));
  // The expressions go into the environment, never into the script: the shell then reads them as data (GitHub's
  // advice against script injection), and the password stays out of the command line.
  y.line(4, "env:");
  y.line(5, "ROOFLENS_TASK: \"${{ matrix.index }}\"");
  if (stores_in_postgresql(plan)) y.line(5, fmt::format("PGPASSWORD: \"${{{{ secrets.{} }}}}\"", o.secret));
  y.line(4, "run: " + actions_literal(manifest_task_line(plan, actions_task_vars(), "github-actions", o.rooflens)));
}

}  // namespace

TaskVars actions_task_vars() {
  return {.index = "$ROOFLENS_TASK",
          .attempt = "$((GITHUB_RUN_ATTEMPT - 1))",
          .node = "$RUNNER_NAME",
          .job = "$GITHUB_RUN_ID",
          .job_tag = kActionsRunTag};
}

std::string actions_matrix_workflow(const FleetPlan& plan, const ActionsOptions& options) {
  check_manifest_plan(plan, kActionsMaxTasks, kActionsFlag);
  check_actions_options(options);
  YamlLines y;
  actions_header(y, plan, options);
  y.line(0, "name: " + actions_literal(fmt::format("rooflens {} {}", plan.command, plan.fleet_id)));
  y.line(0, "on:");
  y.line(1, "workflow_dispatch: {}");
  y.line(0, "permissions: {}");  // the task reads nothing of the repository through GitHub's token
  y.line(0, "jobs:");
  actions_job(y, plan, options);
  actions_step(y, plan, options);
  return y.text;
}

}  // namespace rooflens::fleet
