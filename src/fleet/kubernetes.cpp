#include "fleet/kubernetes.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/fleet_tags.h"
#include "fleet/manifest_text.h"

namespace rooflens::fleet {
namespace {

constexpr const char* kK8sFlag = "--k8s-indexed-job";
// An Indexed Job of more than 10^5 completions must also cap its failed indexes (JobSpec.maxFailedIndexes): far
// beyond any fleet of benchmark machines, so rooflens stops there instead.
constexpr int64_t kK8sMaxTasks = 100000;
// The annotation the Job controller keeps each pod's count of earlier failures of its index in (with
// backoffLimitPerIndex): 0 on the first pod of an index, 1 on its first rerun... — the attempt, as the fleet tags
// count it.
constexpr const char* kFailureCount = "batch.kubernetes.io/job-index-failure-count";

bool is_dns_label(const std::string& s, size_t max) {
  static const std::regex label("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  return s.size() <= max && std::regex_match(s, label);
}

bool is_dns_subdomain(const std::string& s) {
  static const std::regex subdomain("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  return s.size() <= 253 && std::regex_match(s, subdomain);
}

// A pod's hostname is "<job name>-<index>" and must stay a DNS label: the name leaves room for the largest index.
size_t max_name_length(int64_t tasks) { return 63 - 1 - std::to_string(tasks - 1).size(); }

void check_k8s_options(const KubernetesOptions& o, const std::string& job_name, int64_t tasks) {
  static const std::regex secret_key("[-._a-zA-Z0-9]+");
  static const std::regex quantity("[0-9]+(\\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?");
  if (o.image.empty())
    throw UsageError(std::string(kK8sFlag) +
                     " needs --k8s-image: the container image (with rooflens in it) the pods run");
  if (!is_dns_label(job_name, max_name_length(tasks)))
    throw UsageError(fmt::format("{}: the Job name '{}' must be lower-case letters, digits and '-', at most {} "
                                 "characters for {} tasks", kK8sFlag, job_name, max_name_length(tasks), tasks));
  if (!o.namespace_name.empty() && !is_dns_label(o.namespace_name, 63))
    throw UsageError(fmt::format("{}: '{}' is not a Kubernetes namespace name", kK8sFlag, o.namespace_name));
  if (!is_dns_subdomain(o.secret) || !std::regex_match(o.secret_key, secret_key))
    throw UsageError(fmt::format("{}: '{}' (key '{}') is not a Kubernetes Secret name and key", kK8sFlag, o.secret,
                                 o.secret_key));
  for (const std::string* q : {&o.cpu, &o.memory})
    if (!q->empty() && !std::regex_match(*q, quantity))
      throw UsageError(fmt::format("{}: '{}' is not a Kubernetes quantity (\"4\", \"500m\", \"8Gi\")", kK8sFlag, *q));
  if (o.parallelism < 0 || o.backoff_limit_per_index < 0)
    throw UsageError(std::string(kK8sFlag) + ": parallelism and the retries per task are counts (0 or more)");
}

void k8s_header(YamlLines& y, const FleetPlan& plan, const KubernetesOptions& o, const std::string& job_name) {
  // Only checked names go into comments: a user's text could end the comment with a newline.
  y.line(0, fmt::format("# rooflens {} over {} tasks as a Kubernetes Indexed Job, written by rooflens (docs/fleet.md).",
                        plan.command, plan.tasks));
  y.line(0, fmt::format("# Pod I (its completion index, 0..{}) runs task I{}.", plan.tasks - 1,
                        plan.sharded ? fmt::format(": {} --shard I+1/{}", plan.command, plan.tasks) : ""));
  if (stores_in_postgresql(plan)) {
    y.line(0, fmt::format("# No password in this file: the pods read PGPASSWORD from the Secret '{}', key '{}'.",
                          o.secret, o.secret_key));
    y.line(0, "# Create it once in the Job's namespace (from a file: no password in a shell history), then apply:");
    y.line(0, fmt::format("#   kubectl create secret generic {} --from-file={}=PASSWORD_FILE", o.secret, o.secret_key));
  } else {
    y.line(0, "# Apply it, then follow its pods:");
  }
  y.line(0, "#   kubectl apply -f THIS_FILE");
  y.line(0, fmt::format("#   kubectl get pods -l job-name={}", job_name));
}

void k8s_metadata(YamlLines& y, const FleetPlan& plan, const KubernetesOptions& o, const std::string& job_name) {
  y.line(0, "metadata:");
  y.line(1, "name: " + yaml_string(job_name));
  if (!o.namespace_name.empty()) y.line(1, "namespace: " + yaml_string(o.namespace_name));
  y.line(1, "labels:");
  y.line(2, "app.kubernetes.io/name: \"rooflens\"");
  // An annotation, not a label: a fleet id given by the user may hold characters a label value may not.
  y.line(1, "annotations:");
  y.line(2, "rooflens-fleet: " + yaml_string(plan.fleet_id));
}

void env_from_field(YamlLines& y, const std::string& name, const std::string& field) {
  y.line(5, "- name: " + yaml_string(name));
  y.line(6, "valueFrom:");
  y.line(7, "fieldRef:");
  y.line(8, "fieldPath: " + yaml_string(field));
}

void k8s_environment(YamlLines& y, const FleetPlan& plan, const KubernetesOptions& o) {
  y.line(4, "env:");
  env_from_field(y, "ROOFLENS_NODE", "spec.nodeName");
  env_from_field(y, "ROOFLENS_ATTEMPT", fmt::format("metadata.annotations['{}']", kFailureCount));
  if (!stores_in_postgresql(plan)) return;
  y.line(5, "- name: \"PGPASSWORD\"");
  y.line(6, "valueFrom:");
  y.line(7, "secretKeyRef:");
  y.line(8, "name: " + yaml_string(o.secret));
  y.line(8, "key: " + yaml_string(o.secret_key));
}

void k8s_resources(YamlLines& y, const KubernetesOptions& o) {
  if (o.cpu.empty() && o.memory.empty()) return;
  // Requests equal to limits: the pod is in the Guaranteed QoS class, which with the kubelet's static CPU manager
  // and whole CPUs gets cores of its own — what a benchmark needs from a shared node.
  y.line(4, "resources:");
  for (const char* side : {"requests", "limits"}) {
    y.line(5, std::string(side) + ":");
    if (!o.cpu.empty()) y.line(6, "cpu: " + yaml_string(o.cpu));
    if (!o.memory.empty()) y.line(6, "memory: " + yaml_string(o.memory));
  }
}

void k8s_container(YamlLines& y, const FleetPlan& plan, const KubernetesOptions& o, const std::string& job_name) {
  const std::string line = manifest_task_line(plan, kubernetes_task_vars(job_name), "kubernetes", o.rooflens);
  y.line(3, "- name: \"rooflens\"");
  y.line(4, "image: " + yaml_string(o.image));
  if (!o.workdir.empty()) y.line(4, "workingDir: " + yaml_string(o.workdir));
  y.line(4, "command: " + yaml_strings({"/bin/sh", "-c", escape_kubernetes_expansion(line)}));
  k8s_environment(y, plan, o);
  k8s_resources(y, o);
}

}  // namespace

std::string escape_kubernetes_expansion(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '$' ? std::string("$$") : std::string(1, c);
  return out;
}

TaskVars kubernetes_task_vars(const std::string& job_name) {
  // The failure count is there only with backoffLimitPerIndex (Kubernetes 1.29+); without it every pod is attempt 0
  // and a rerun still supersedes by its later time.
  return {.index = "$JOB_COMPLETION_INDEX",
          .attempt = "${ROOFLENS_ATTEMPT:-0}",
          .node = "$ROOFLENS_NODE",
          .job = job_name,
          .job_tag = kKubernetesJobTag};
}

std::string kubernetes_job_name(const FleetPlan& plan, const KubernetesOptions& options) {
  if (!options.name.empty()) return options.name;
  std::string name = "rooflens-";
  for (char c : plan.fleet_id)
    name += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                                                       : '-';
  name.resize(std::min(name.size(), max_name_length(plan.tasks)));
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name;
}

std::string indexed_job_manifest(const FleetPlan& plan, const KubernetesOptions& options) {
  check_manifest_plan(plan, kK8sMaxTasks, kK8sFlag);
  const std::string job_name = kubernetes_job_name(plan, options);
  check_k8s_options(options, job_name, plan.tasks);
  YamlLines y;
  k8s_header(y, plan, options, job_name);
  y.line(0, "apiVersion: \"batch/v1\"");
  y.line(0, "kind: \"Job\"");
  k8s_metadata(y, plan, options, job_name);
  y.line(0, "spec:");
  y.line(1, "completionMode: \"Indexed\"");
  y.line(1, fmt::format("completions: {}", plan.tasks));
  y.line(1, fmt::format("parallelism: {}", options.parallelism > 0 ? options.parallelism : plan.tasks));
  // Per index, so one model that crashes its pod reruns alone and does not use up the retries of the others.
  y.line(1, fmt::format("backoffLimitPerIndex: {}", options.backoff_limit_per_index));
  y.line(1, "template:");
  y.line(2, "spec:");
  y.line(3, "restartPolicy: \"Never\"");  // backoffLimitPerIndex requires it; a rerun is a new pod, a new attempt
  y.line(3, "containers:");
  k8s_container(y, plan, options, job_name);
  return y.text;
}

}  // namespace rooflens::fleet
