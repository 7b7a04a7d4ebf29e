#pragma once
// How much memory a run may still take here, before it starts: the kernel's MemAvailable, or less where this
// process's cgroup (v2) sets a limit; and the cgroup's count of out-of-memory kills, which tells a runner the OOM
// killer ended from one that crashed. Used to warn before a run whose predicted need exceeds it, and to say so
// clearly when a runner dies for memory.
#include <cstdint>
#include <optional>
#include <string>

namespace rooflens {

struct FreeMemory {
  uint64_t bytes = 0;        // 0: not known
  std::string source;        // "MemAvailable" | "cgroup memory.max" (the smaller of the two wins)
};

FreeMemory free_memory();

// The OOM killer's count for this process's cgroup (memory.events, oom_kill); nullopt when it cannot be read.
std::optional<uint64_t> oom_kills();

// "" when `need` fits; else one line naming what, the need and the free memory, and what to do.
std::string memory_need_warning(const std::string& what, uint64_t need, const FreeMemory& free);

// Parsers of the files above, split out for tests: MemAvailable of /proc/meminfo (bytes), a cgroup v2 path of
// /proc/self/cgroup ("0::/path"), the oom_kill line of memory.events.
std::optional<uint64_t> mem_available(const std::string& meminfo);
std::string cgroup_path(const std::string& proc_self_cgroup);
std::optional<uint64_t> oom_kill_count(const std::string& memory_events);

}  // namespace rooflens
