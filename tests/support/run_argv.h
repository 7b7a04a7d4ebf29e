#pragma once
// Runs a program with exactly the argv and environment a test gives (no shell between), capturing what it prints:
// for tests that check what a command line becomes once a shell or a validator has read it.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace rooflens::testing {

struct ArgvResult {
  int rc = -1;
  std::string out, err;
};

inline std::string read_whole_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// `env` replaces the whole environment ("NAME=value" entries); `tmpdir` holds the captured output files.
inline ArgvResult run_argv(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          const std::string& tmpdir) {
  const std::string out = tmpdir + "/argv.out", err = tmpdir + "/argv.err";
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) _exit(126);
    std::vector<char*> a, v;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    for (const auto& s : env) v.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    v.push_back(nullptr);
    ::execve(a[0], a.data(), v.data());
    _exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ArgvResult r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_whole_file(out);
  r.err = read_whole_file(err);
  return r;
}

}  // namespace rooflens::testing
