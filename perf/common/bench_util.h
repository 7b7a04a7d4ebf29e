#pragma once
// What every `make bench` part needs around the commands it times: shell quoting, reading a file, running a
// command for its stdout, knobs from the environment, a median, and how busy the rest of the machine was.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace bench_util {

inline std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs `cmd`, returns its stdout; stderr goes to `err` (shown when the command fails).
inline std::string capture(const std::string& cmd, const std::filesystem::path& err, int& rc) {
  FILE* p = popen((cmd + " 2>" + quote(err.string())).c_str(), "r");
  std::string out;
  if (!p) {
    rc = -1;
    return out;
  }
  char buf[1 << 14];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

inline double env_number(const char* name, double def) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtod(v, nullptr) : def;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Busy CPU seconds of the whole machine (user+nice+system+irq+softirq), from /proc/stat's first line.
inline double machine_busy_s() {
  std::ifstream f("/proc/stat");
  std::string cpu;
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0;
  f >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq;
  return static_cast<double>(user + nice + system + irq + softirq) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// CPU seconds of this process's finished children: subtracted from machine_busy_s() to get the others' share.
inline double children_cpu_s() {
  rusage r{};
  ::getrusage(RUSAGE_CHILDREN, &r);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return s(r.ru_utime) + s(r.ru_stime);
}

}  // namespace bench_util
