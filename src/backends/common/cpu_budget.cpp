#include "backends/common/cpu_budget.h"

#include <sched.h>

#include <fstream>
#include <set>
#include <utility>

namespace rooflens {
namespace {

std::optional<int> read_int(const std::string& path) {
  std::ifstream f(path);
  int v = 0;
  if (f >> v) return v;
  return std::nullopt;
}

// (package, core) of a CPU as the kernel's topology files name it.
std::optional<std::pair<int, int>> sysfs_package_core(int cpu) {
  const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
  auto package = read_int(dir + "physical_package_id"), core = read_int(dir + "core_id");
  if (!package || !core) return std::nullopt;
  return std::make_pair(*package, *core);
}

}  // namespace

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]) + (j > i ? "-" + std::to_string(cpus[j]) : "");
    i = j + 1;
  }
  return out;
}

std::string CpuBudget::cpu_list() const { return cpu_list_text(cpus); }

CpuBudget budget_of(std::vector<int> cpus, const std::function<std::optional<std::pair<int, int>>(int)>& package_core) {
  CpuBudget b;
  b.cpus = std::move(cpus);
  if (b.cpus.empty()) b.cpus = {0};
  std::set<std::pair<int, int>> cores;
  for (int c : b.cpus) {
    auto pc = package_core(c);
    if (!pc) {  // topology unreadable: every CPU counts as a core of its own
      b.cores = static_cast<int64_t>(b.cpus.size());
      return b;
    }
    cores.insert(*pc);
  }
  b.cores = static_cast<int64_t>(cores.size());
  return b;
}

CpuBudget cpu_budget() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return budget_of(std::move(cpus), sysfs_package_core);
}

RunSetting intra_op_setting(int64_t requested, const CpuBudget& budget, const std::string& option) {
  RunSetting s;
  s.name = "intra_op_threads";
  s.option = option;
  if (requested > 0) {
    s.value = std::to_string(requested);
    s.source = SettingSource::user;
    return s;
  }
  s.value = std::to_string(budget.cores);
  s.source = SettingSource::rooflens;
  s.note = "one per physical core rooflens may use: " + std::to_string(budget.cores) + " core(s) under CPU(s) " +
           budget.cpu_list() + " of its affinity mask";
  return s;
}

std::string oversubscription_warning(int64_t threads, const CpuBudget& budget) {
  const auto cpus = static_cast<int64_t>(budget.cpus.size());
  if (threads <= cpus) return "";
  return std::to_string(threads) + " intra-op threads share " + std::to_string(cpus) + " CPU(s) (affinity mask " +
         budget.cpu_list() + "): each parallel kernel waits for threads the OS has set aside";
}

}  // namespace rooflens
