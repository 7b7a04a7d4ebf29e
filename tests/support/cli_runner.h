#pragma once
// Runs the real rooflens binary and captures exit code, stdout and stderr.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rooflens::testing {

struct CliResult {
  int rc = -1;
  std::string out, err;
  int err_lines() const {
    int n = 0;
    for (char c : err) n += c == '\n';
    return n;
  }
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline CliResult run_cli(const std::string& args, const std::string& tmpdir) {
  std::string out = tmpdir + "/cli.out", err = tmpdir + "/cli.err";
  std::string cmd = std::string(ROOFLENS_BINARY) + " " + args + " >" + shell_quote(out) + " 2>" + shell_quote(err);
  int status = std::system(cmd.c_str());
  CliResult r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace rooflens::testing
