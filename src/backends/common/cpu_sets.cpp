// Disjoint CPU sets for instances pinned side by side (`rooflens capacity --pin`): whole physical cores each, so
// two instances never share a core's vector units through SMT siblings.
#include <sched.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <system_error>

#include "backends/common/cpu_budget.h"

namespace rooflens {
namespace {

std::optional<std::pair<int, int>> sysfs_core(int cpu) {
  const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
  std::ifstream p(dir + "physical_package_id"), c(dir + "core_id");
  int package = 0, core = 0;
  if (!(p >> package) || !(c >> core)) return std::nullopt;
  return std::make_pair(package, core);
}

}  // namespace

std::vector<std::vector<int>> disjoint_cpu_sets(const std::vector<int>& cpus, int64_t sets, int64_t cores_each,
                                                const std::function<std::optional<std::pair<int, int>>(int)>& package_core) {
  std::vector<std::vector<int>> cores;               // CPUs of each core, cores in order of their first CPU
  std::map<std::pair<int, int>, size_t> index;
  for (int cpu : cpus) {
    const auto pc = package_core(cpu);
    const std::pair<int, int> key = pc ? *pc : std::make_pair(-1, cpu);  // unknown topology: a CPU is a core
    auto [it, fresh] = index.emplace(key, cores.size());
    if (fresh) cores.emplace_back();
    cores[it->second].push_back(cpu);
  }
  if (sets <= 0 || cores_each <= 0 || static_cast<int64_t>(cores.size()) < sets * cores_each) return {};
  std::vector<std::vector<int>> out(static_cast<size_t>(sets));
  for (int64_t s = 0; s < sets; ++s)
    for (int64_t k = 0; k < cores_each; ++k)
      for (int cpu : cores[static_cast<size_t>(s * cores_each + k)]) out[static_cast<size_t>(s)].push_back(cpu);
  return out;
}

std::vector<std::vector<int>> disjoint_cpu_sets(int64_t sets, int64_t cores_each) {
  return disjoint_cpu_sets(cpu_budget().cpus, sets, cores_each, sysfs_core);
}

std::vector<int> thread_ids(int pid) {
  std::vector<int> ids;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    const int tid = std::atoi(task.path().filename().c_str());
    if (tid > 0) ids.push_back(tid);
  }
  return ids;
}

bool pin_process(int pid, const std::vector<int>& cpus) {
  cpu_set_t want;
  CPU_ZERO(&want);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &want);
  const std::vector<int> threads = thread_ids(pid);
  bool all = true;
  for (int tid : threads) all = ::sched_setaffinity(tid, sizeof want, &want) == 0 && all;
  return !threads.empty() && all;
}

std::size_t distinct_thread_cpu_sets(int pid) {
  std::vector<cpu_set_t> seen;
  for (int tid : thread_ids(pid)) {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (::sched_getaffinity(tid, sizeof mask, &mask) != 0) continue;  // ESRCH: the thread ended
    bool known = false;
    for (const cpu_set_t& s : seen) known = known || CPU_EQUAL(&s, &mask);
    if (!known) seen.push_back(mask);
  }
  return seen.size();
}

}  // namespace rooflens
