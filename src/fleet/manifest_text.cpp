#include "fleet/manifest_text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "db/url.h"

namespace rooflens::fleet {

namespace {

// U+0080..U+009F (UTF-8 C2 80..C2 9F) as YAML escapes: not printable, so YAML allows them only escaped.
std::string escape_c1(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    const auto next = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0u;
    if (b == 0xC2 && next >= 0x80 && next <= 0x9F) {
      out += fmt::format("\\u{:04X}", next);
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::string yaml_string(const std::string& s) {
  try {
    return escape_c1(nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::strict));
  } catch (const nlohmann::json::type_error&) {
    throw UsageError("a fleet manifest holds only UTF-8 text: an argument, tag or option is not (" +
                     nlohmann::json(s).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace) + ")");
  }
}

std::string yaml_strings(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& s : items) out += (out.size() > 1 ? ", " : "") + yaml_string(s);
  return out + "]";
}

void check_manifest_plan(const FleetPlan& plan, int64_t max_tasks, const std::string& flag) {
  if (plan.command != "bench" && plan.command != "score")
    throw UsageError(flag + ": a fleet runs bench or score, not '" + plan.command + "'");
  if (plan.tasks < 1 || plan.tasks > max_tasks)
    throw UsageError(flag + " " + std::to_string(plan.tasks) + ": between 1 and " + std::to_string(max_tasks) +
                     " tasks");
  if (!plan.db_url.empty()) check_db_url(plan.db_url);
  if (!plan.task_args.empty())
    throw UsageError(flag + ": tasks with words of their own (capacity --search's grid points) run on Slurm (--slurm N)");
}

bool stores_in_postgresql(const FleetPlan& plan) {
  return !plan.db_url.empty() && db::parse_db_url(plan.db_url).kind == db::DbKind::postgresql;
}

std::string manifest_task_line(FleetPlan plan, const TaskVars& vars, const std::string& scheduler,
                               const std::string& rooflens) {
  // The local binary's path and working directory mean nothing in a pod or on a CI runner: the task runs the
  // scheduler side's rooflens, where the manifest's own working directory says.
  plan.scheduler = scheduler;
  plan.rooflens = rooflens;
  return shell_line(task_words(plan, vars));
}

}  // namespace rooflens::fleet
