#pragma once
// A fleet run as a GitHub Actions matrix (docs/fleet.md, "Kubernetes and CI matrices"): one workflow whose job
// runs once per task index, each leg one task. rooflens writes the workflow file; GitHub runs it. Nothing here talks
// to GitHub.
#include <cstdint>
#include <string>
#include <vector>

#include "fleet/plan.h"

namespace rooflens::fleet {

struct ActionsOptions {
  // Benchmarks need a machine someone knows: a self-hosted runner by default (GitHub's hosted runners are shared
  // virtual machines of whichever size is free). Every label must match.
  std::vector<std::string> runs_on{"self-hosted"};
  std::string secret = "ROOFLENS_DB_PASSWORD";  // the repository or organisation secret holding the password
  int64_t max_parallel = 0;                      // legs at once (0 = as many as there are runners)
  int64_t timeout_minutes = 0;                   // per leg (0 = GitHub's default, 360)
  std::string rooflens = "rooflens";             // the binary on the runner (a name on its PATH or an absolute path)
  std::string workdir;                           // the step's working directory ("" = the runner's workspace)
};

// The workflow as YAML, started by hand (workflow_dispatch), with a comment at the top saying where the password
// comes from. Throws UsageError for more tasks than a matrix holds, a bad secret name, or text GitHub would evaluate.
std::string actions_matrix_workflow(const FleetPlan& plan, const ActionsOptions& options);

// How a leg names its task, as shell expressions over variables the step's environment holds: index from the
// matrix (ROOFLENS_TASK), attempt from GITHUB_RUN_ATTEMPT (1-based there, 0-based in the tags), node RUNNER_NAME,
// job GITHUB_RUN_ID (tag actions_run).
TaskVars actions_task_vars();

}  // namespace rooflens::fleet
