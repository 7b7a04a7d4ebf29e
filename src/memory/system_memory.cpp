#include "memory/system_memory.h"

#include <fstream>
#include <sstream>

#include "core/units.h"

namespace rooflens {
namespace {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return std::nullopt;
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::optional<uint64_t> meminfo_number(const std::string& text) {
  std::istringstream in(text);
  uint64_t v = 0;
  if (!(in >> v)) return std::nullopt;  // "max" (no limit) reads as nothing
  return v;
}

// The value after `key` on its line of a "key value" file.
std::optional<uint64_t> keyed(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return meminfo_number(line.substr(key.size()));
  return std::nullopt;
}

std::string cgroup_dir() {
  const auto self = read_file("/proc/self/cgroup");
  if (!self) return "";
  const std::string p = cgroup_path(*self);
  return p.empty() ? "" : "/sys/fs/cgroup" + p;
}

}  // namespace

std::optional<uint64_t> mem_available(const std::string& meminfo) {
  const auto kib = keyed(meminfo, "MemAvailable:");
  if (!kib) return std::nullopt;
  return *kib * 1024;
}

std::string cgroup_path(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  return "";
}

std::optional<uint64_t> oom_kill_count(const std::string& events) { return keyed(events, "oom_kill "); }

FreeMemory free_memory() {
  FreeMemory out;
  if (const auto info = read_file("/proc/meminfo"))
    if (const auto b = mem_available(*info)) out = {*b, "MemAvailable"};
  const std::string dir = cgroup_dir();
  if (dir.empty()) return out;
  const auto max = read_file(dir + "/memory.max"), current = read_file(dir + "/memory.current");
  if (!max || !current) return out;
  const auto limit = meminfo_number(*max), used = meminfo_number(*current);
  if (!limit || !used) return out;  // "max": no limit
  const uint64_t left = *limit > *used ? *limit - *used : 0;
  if (out.bytes == 0 || left < out.bytes) out = {left, "cgroup memory.max"};
  return out;
}

std::optional<uint64_t> oom_kills() {
  const std::string dir = cgroup_dir();
  if (dir.empty()) return std::nullopt;
  const auto events = read_file(dir + "/memory.events");
  if (!events) return std::nullopt;
  return oom_kill_count(*events);
}

std::string memory_need_warning(const std::string& what, uint64_t need, const FreeMemory& free) {
  if (free.bytes == 0 || need <= free.bytes) return "";
  return what + " needs at least " + si_bytes(static_cast<double>(need)) + " (predicted: weights + activations), " +
         "more than the " + si_bytes(static_cast<double>(free.bytes)) + " free here (" + free.source +
         "): the runner may be killed for memory; a smaller batch or shape needs less (rooflens analyze shows the need)";
}

}  // namespace rooflens
