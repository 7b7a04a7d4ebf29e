#pragma once
// A fleet run as a Kubernetes Indexed Job (docs/fleet.md, "Kubernetes and CI matrices"): one batch/v1 Job whose N
// pods each run one task, the pod's completion index being the task's index. rooflens writes the manifest;
// `kubectl apply` runs it. Nothing here talks to a cluster.
#include <cstdint>
#include <string>

#include "fleet/plan.h"

namespace rooflens::fleet {

struct KubernetesOptions {
  std::string image;                      // --k8s-image: the container image with rooflens in it (required)
  std::string name;                       // the Job's name ("" = "rooflens-" + the fleet id, as a DNS label)
  std::string namespace_name;             // metadata.namespace ("" = kubectl's current namespace)
  int64_t parallelism = 0;                // pods running at once (0 = all N)
  int64_t backoff_limit_per_index = 1;    // reruns of a failed task before that index counts as failed
  std::string secret = "rooflens-db";     // the Secret holding the database password
  std::string secret_key = "password";    // its key
  std::string rooflens = "rooflens";      // the binary inside the image (a name on its PATH or an absolute path)
  std::string workdir;                    // the container's working directory ("" = the image's WORKDIR)
  std::string cpu;                        // e.g. "4": requested and limited alike ("" = none)
  std::string memory;                     // e.g. "8Gi": requested and limited alike ("" = none)
};

// The Job as YAML, with a comment at the top saying how to create the password's Secret and apply the file.
// Throws UsageError when the image is missing or a name is not one Kubernetes accepts.
std::string indexed_job_manifest(const FleetPlan& plan, const KubernetesOptions& options);

// How a pod of the Job names its task (the shell expressions of its command line): index $JOB_COMPLETION_INDEX,
// attempt from the pod's per-index failure count, node from spec.nodeName, job the Job's name (tag k8s_job).
TaskVars kubernetes_task_vars(const std::string& job_name);

// The Job's name: options.name, else "rooflens-" + the fleet id lower-cased with other characters as '-'.
std::string kubernetes_job_name(const FleetPlan& plan, const KubernetesOptions& options);

// Kubernetes expands $(VAR) in a container's command itself, before the shell sees it; "$$" is its escape for "$".
std::string escape_kubernetes_expansion(const std::string& s);

}  // namespace rooflens::fleet
