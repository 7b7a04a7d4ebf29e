#pragma once
// The CPUs a runtime started by rooflens may use, and the intra-op thread count rooflens passes to it when the user
// names none. A runner inherits rooflens' affinity mask (taskset, a cgroup's cpuset; not a CPU-time quota), so the
// count follows the mask, not the machine: one thread per physical core that has at least one CPU in the mask.
// Why cores and not CPUs: SMT siblings share one core's vector units, so a second thread on a sibling buys little
// for the matrix kernels that dominate inference and slows every kernel's barrier; ONNX Runtime's own default and
// the roofs of `rooflens hw` (one thread per core first) count the same way. Why rooflens chooses at all: a
// runtime's own default differs between runtimes and machines (ORT ignores the affinity mask; OpenCV counts the
// mask's logical CPUs, SMT siblings included), and a run must be labelled with the count that ran — so the count is
// always passed explicitly.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/run_settings.h"

namespace rooflens {

// A CPU set as taskset prints it: "0-3,6".
std::string cpu_list_text(const std::vector<int>& cpus);

struct CpuBudget {
  std::vector<int> cpus;   // logical CPUs in this process's affinity mask, ascending
  int64_t cores = 0;       // physical cores with at least one of them (== cpus.size() when topology is unreadable)
  std::string cpu_list() const;  // "0-3,6"
};

// This process's budget (sched_getaffinity + /sys/devices/system/cpu/cpuN/topology). Never empty: at least CPU 0,
// one core, when the mask cannot be read.
CpuBudget cpu_budget();

// The budget of `cpus` with `package_core(cpu)` naming each CPU's (package, core) pair, or nullopt when unknown.
// Split out so tests can give a topology (SMT siblings, several packages) without the machine having it.
CpuBudget budget_of(std::vector<int> cpus, const std::function<std::optional<std::pair<int, int>>(int)>& package_core);

// The intra-op setting of a run: `requested` (> 0: the user's), else the budget's cores (rooflens' choice),
// with the note that says why. `option` is the backend's own name for the setting.
RunSetting intra_op_setting(int64_t requested, const CpuBudget& budget, const std::string& option);

// `sets` disjoint CPU sets of `cores_each` whole physical cores (every SMT sibling of a core goes with it) from this
// process's affinity mask, in CPU order: the CPUs of instances pinned side by side (cpu_sets.cpp). Empty when the
// mask holds fewer cores.
std::vector<std::vector<int>> disjoint_cpu_sets(int64_t sets, int64_t cores_each);
// The same over a given budget's CPUs and topology (tests).
std::vector<std::vector<int>> disjoint_cpu_sets(const std::vector<int>& cpus, int64_t sets, int64_t cores_each,
                                                const std::function<std::optional<std::pair<int, int>>(int)>& package_core);

// The thread ids of process `pid` now (/proc/PID/task); empty when /proc cannot list them.
std::vector<int> thread_ids(int pid);

// Moves every thread of process `pid` onto `cpus` (threads it starts later inherit the mask of their creator, so
// they stay there too). False when /proc cannot list its threads or one of them refused.
bool pin_process(int pid, const std::vector<int>& cpus);

// How many different CPU sets the threads of process `pid` are allowed now (a thread that ended meanwhile is left
// out): how a caller sees that a runner's threads have placed themselves.
std::size_t distinct_thread_cpu_sets(int pid);

// What a run's thread count means on this budget: more threads than allowed CPUs share them (each kernel's
// barrier then waits for a descheduled thread). "" when nothing needs saying.
std::string oversubscription_warning(int64_t threads, const CpuBudget& budget);

}  // namespace rooflens
