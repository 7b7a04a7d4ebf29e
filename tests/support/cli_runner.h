#pragma once
// Runs the real rooflens binary and captures exit code, stdout and stderr.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

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

// `env` is put in front of the binary: shell assignments ("VAR=value ") or an env(1) call ("env -u VAR ").
inline CliResult run_cli_env(const std::string& env, const std::string& args, const std::string& tmpdir) {
  std::string out = tmpdir + "/cli.out", err = tmpdir + "/cli.err";
  std::string cmd = env + std::string(ROOFLENS_BINARY) + " " + args + " >" + shell_quote(out) + " 2>" + shell_quote(err);
  int status = std::system(cmd.c_str());
  CliResult r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

inline CliResult run_cli(const std::string& args, const std::string& tmpdir) { return run_cli_env("", args, tmpdir); }

// Starts the real binary in the background (stdout/stderr to files), for tests that signal it mid-run.
inline pid_t spawn_rooflens(const std::vector<std::string>& args, const std::string& out, const std::string& err,
                            const std::string& tmpdir = "") {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (!tmpdir.empty()) ::setenv("TMPDIR", tmpdir.c_str(), 1);
    FILE* o = std::freopen(out.c_str(), "w", stdout);
    FILE* e = std::freopen(err.c_str(), "w", stderr);
    (void)o;
    (void)e;
    std::vector<char*> argv{const_cast<char*>(ROOFLENS_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(ROOFLENS_BINARY, argv.data());
    _exit(127);
  }
  return pid;
}

inline int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

template <class Pred>
inline bool wait_for(Pred pred, std::chrono::seconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace rooflens::testing
