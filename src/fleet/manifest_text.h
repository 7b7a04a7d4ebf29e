#pragma once
// What the manifests rooflens writes for other schedulers (kubernetes.h, github_actions.h) share: their scalars
// and the plan checks both need. Not for the Slurm script, which is shell, not YAML. YAML rather than JSON (which
// either scheduler would read too): the files open with comments saying where the password comes from.
#include <cstdint>
#include <string>
#include <vector>

#include "fleet/plan.h"

namespace rooflens::fleet {

// A YAML document written line by line, two spaces per level of depth: the manifests have a fixed shape.
struct YamlLines {
  std::string text;
  void line(int depth, const std::string& s) { text += std::string(2 * depth, ' ') + s + '\n'; }
};

// A string as a YAML scalar: written as a JSON string, which YAML 1.2 reads as a double-quoted scalar with the
// same escapes (YAML 1.2 is a superset of JSON). No string can then be taken for a number, a boolean, null, a
// comment or a key, whatever the user typed. UTF-8 stays as it is, but for the C1 control characters, which YAML
// allows only escaped. Throws UsageError for text that is not UTF-8 (YAML holds only Unicode).
std::string yaml_string(const std::string& s);

// "[\"a\", \"b\"]": a flow sequence of yaml_string()s.
std::string yaml_strings(const std::vector<std::string>& items);

// The plan a manifest can carry: bench or score, 1..max_tasks tasks, a database URL without its password, an -o path
// the task's shell takes as written.
// `flag` names the file in the messages ("--k8s-indexed-job").
void check_manifest_plan(const FleetPlan& plan, int64_t max_tasks, const std::string& flag);

// Whether the tasks store into PostgreSQL, so the manifest gives them the password (from the scheduler's secrets).
bool stores_in_postgresql(const FleetPlan& plan);

// The plan's one task line for `scheduler`, the task run by `rooflens` (the binary on the scheduler's machines).
std::string manifest_task_line(FleetPlan plan, const TaskVars& vars, const std::string& scheduler,
                               const std::string& rooflens);

}  // namespace rooflens::fleet
