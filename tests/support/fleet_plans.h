#pragma once
// Fleet plans the manifest tests share (unit: the task line through /bin/sh; integration: the files through the
// schedulers' validators), and what a scheduler does to a task line before the shell reads it.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fleet/plan.h"
#include "support/run_argv.h"

namespace rooflens::testing {

// The args are the command's own, without -o: the plan carries the output and gives each task attempt its own.
// bench over 4 shards, with arguments and tags a shell or a YAML reader would take apart if they were not quoted:
// spaces, both quotes, a backslash, $VAR, Kubernetes' $(VAR), a YAML comment and mapping marks.
inline fleet::FleetPlan sharded_bench_plan() {
  fleet::FleetPlan p;
  p.command = "bench";
  p.args = {"--models", "my models/it's \"quoted\"", "--filter", "a: b # c", "--repeat", "3"};
  p.tasks = 4;
  p.sharded = true;
  p.db_url = "postgresql://bench@db.example:5432/rooflens";
  p.fleet_id = "bench-20261129T001500Z-a1b2";
  p.commit = "abc123";
  p.tags = {"team=perf lab", "note=it's $HOME and $(PGPASSWORD)", R"(q=say "hi" \ there)"};
  p.output = "out dir";
  return p;
}

// score whole on each of 2 machines, into one results file per task.
inline fleet::FleetPlan unsharded_score_plan() {
  fleet::FleetPlan p;
  p.command = "score";
  p.args = {"--suite", "v2"};
  p.tasks = 2;
  p.sharded = false;
  p.db_url = "postgres://scorer@db.example/rooflens?sslmode=require";
  p.fleet_id = "score-20261129T001500Z-beef";
  p.tags = {"lab=north"};
  p.output = "score.json";
  return p;
}

// Kubernetes' own expansion of a container's command, before any shell (the Container.command rule): "$$" is one
// "$", "$(NAME)" is NAME's value when the container's environment has it, anything else stays as it is.
inline std::string kubernetes_expand(const std::string& s, const std::map<std::string, std::string>& env) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '$' || i + 1 == s.size()) {
      out += s[i];
    } else if (s[i + 1] == '$') {
      out += '$';
      ++i;
    } else if (s[i + 1] == '(' && s.find(')', i) != std::string::npos) {
      const size_t close = s.find(')', i);
      const auto it = env.find(s.substr(i + 2, close - i - 2));
      out += it != env.end() ? it->second : s.substr(i, close - i + 1);
      i = close;
    } else {
      out += s[i];
    }
  }
  return out;
}

// A stand-in for rooflens in `dir` that prints the arguments it was given, each followed by a NUL byte.
inline std::string argv_printer(const std::filesystem::path& dir) {
  const auto path = dir / "print-argv";
  std::ofstream(path) << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path.string();
}

// The arguments /bin/sh -c LINE hands its program, under exactly `env`.
inline std::vector<std::string> argv_after_shell(const std::string& line, const std::vector<std::string>& env,
                                                 const std::string& tmpdir) {
  const ArgvResult r = run_argv({"/bin/sh", "-c", line}, env, tmpdir);
  std::vector<std::string> args;
  std::string cur;
  for (char c : r.out) {
    if (c) {
      cur += c;
    } else {
      args.push_back(cur);
      cur.clear();
    }
  }
  if (r.rc != 0) args.push_back("(exit " + std::to_string(r.rc) + ": " + r.err + ")");
  return args;
}

}  // namespace rooflens::testing
