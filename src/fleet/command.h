#pragma once
// Running the scheduler's own tools (sbatch, squeue, sacct, scontrol): a program with arguments, no shell, its
// output captured, never waited on for ever.
#include <string>
#include <vector>

namespace rooflens::fleet {

struct CommandResult {
  int exit_code = -1;     // the program's exit status; 127 when it could not be started, -1 when killed
  std::string out, err;   // what it wrote
  bool timed_out = false;
};

// Runs argv[0] (looked up in PATH) with argv[1..], stdin from /dev/null. After `timeout_s` the program is killed
// and the result says timed_out.
CommandResult run_command(const std::vector<std::string>& argv, double timeout_s = 60);

// "sbatch: error: ..." -> the first non-empty line of err (else out), for one-line messages.
std::string first_line(const CommandResult& r);

}  // namespace rooflens::fleet
