#include "memory/memory_guard.h"

#include "core/units.h"

namespace rooflens {

std::string died_message(const std::string& message, const MemoryBefore& before, const std::string& label) {
  const std::optional<uint64_t> after = oom_kills();
  const bool counted = before.oom_kills && after && *after > *before.oom_kills;
  const bool killed = message.find("signal 9") != std::string::npos || message.find("SIGKILL") != std::string::npos;
  const bool short_of_memory = before.free.bytes > 0 && before.need > before.free.bytes;
  if (!counted && !(killed && short_of_memory)) return message;
  std::string out = "the runner was killed for memory while running " + label + " (" +
                    (counted ? "the kernel's OOM killer: this cgroup's oom_kill count went from " +
                                   std::to_string(*before.oom_kills) + " to " + std::to_string(*after)
                             : "SIGKILL while its predicted need exceeded the free memory") +
                    "); predicted need " + si_bytes(static_cast<double>(before.need)) + ", free before the run " +
                    si_bytes(static_cast<double>(before.free.bytes)) + " (" + before.free.source +
                    "): run a smaller batch or shape, or free memory. The configurations before it are in the report";
  return out + " [" + message + "]";
}

}  // namespace rooflens
