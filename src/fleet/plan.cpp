#include "fleet/plan.h"

#include <cctype>
#include <chrono>
#include <ctime>
#include <random>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/fleet_tags.h"
#include "db/url.h"

namespace rooflens::fleet {
namespace {

Word literal(std::string s) { return {std::move(s), false, "", ""}; }
Word expanding(std::string s) { return {std::move(s), true, "", ""}; }

}  // namespace

std::string shell_quote(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::string_view("@%+=:,./_-").find(c) != std::string_view::npos))
      plain = false;
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string shell_line(const std::vector<Word>& words) {
  std::string line;
  for (const Word& w : words) {
    if (!line.empty()) line += ' ';
    // An expanding word keeps its $ and quotes nothing else: the texts task_words writes there hold no quote,
    // backquote or backslash (the user's text around them is quoted on its own; adjacent quoted strings are one
    // shell word).
    if (!w.expands) {
      line += shell_quote(w.text);
      continue;
    }
    if (!w.before.empty()) line += shell_quote(w.before);
    line += "\"" + w.text + "\"";
    if (!w.after.empty()) line += shell_quote(w.after);
  }
  return line;
}

namespace {

// The --output word of one task attempt: the user's path (literal) around the task's part (the scheduler's).
Word output_word(const FleetPlan& plan, const TaskVars& vars) {
  Word w{"task-" + vars.index + (vars.attempt.empty() ? "" : "-attempt-" + vars.attempt), true, "--output=", ""};
  if (plan.command == "bench") {
    w.before += plan.output + "/";
    return w;
  }
  const auto dot = plan.output.rfind('.');
  const auto slash = plan.output.rfind('/');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  w.before += (has_ext ? plan.output.substr(0, dot) : plan.output) + "-";
  if (has_ext) w.after = plan.output.substr(dot);
  return w;
}

}  // namespace

std::string task_output(const FleetPlan& plan, const TaskVars& vars) {
  if (plan.output.empty()) return "";
  const Word w = output_word(plan, vars);
  return w.before.substr(std::string("--output=").size()) + w.text + w.after;
}

std::vector<Word> task_words(const FleetPlan& plan, const TaskVars& vars) {
  std::vector<Word> w{literal(plan.rooflens), literal(plan.command)};
  for (const std::string& a : plan.args) w.push_back(literal(a));
  if (!plan.task_args.empty()) w.push_back(expanding("$@"));  // the task's own words, set by its script (slurm.cpp)
  if (plan.sharded) w.push_back(expanding("--shard=$((" + vars.index + " + 1))/" + std::to_string(plan.tasks)));
  if (!plan.output.empty()) w.push_back(output_word(plan, vars));
  if (!plan.db_url.empty()) w.push_back(literal("--db=" + plan.db_url));
  for (const std::string& t : plan.tags) w.push_back(literal("--tag=" + t));
  if (!plan.commit.empty()) w.push_back(literal("--commit=" + plan.commit));
  w.push_back(literal(fmt::format("--tag={}={}", kFleetTag, plan.fleet_id)));
  w.push_back(literal(fmt::format("--tag={}={}", kSchedulerTag, plan.scheduler)));
  w.push_back(expanding(fmt::format("--tag={}={}", kTaskTag, vars.index)));
  if (!vars.attempt.empty()) w.push_back(expanding(fmt::format("--tag={}={}", kAttemptTag, vars.attempt)));
  if (!vars.node.empty()) w.push_back(expanding(fmt::format("--tag={}={}", kNodeTag, vars.node)));
  if (!vars.job.empty()) w.push_back(expanding(fmt::format("--tag={}={}", vars.job_tag, vars.job)));
  return w;
}

std::string new_fleet_id(const std::string& command) {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  std::random_device rd;
  return fmt::format("{}-{:04}{:02}{:02}T{:02}{:02}{:02}Z-{:04x}", command, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, rd() & 0xffffu);
}

void check_db_url(const std::string& url) {
  const db::DbUrl u = db::parse_db_url(url);
  if (!u.password.empty() || u.target.find("password=") != std::string::npos)
    throw UsageError("--db " + u.shown + ": a fleet's tasks would carry the password in their command line and script; "
                     "give the URL without it and put the password in PGPASSFILE (or ~/.pgpass) on the nodes");
}

}  // namespace rooflens::fleet
