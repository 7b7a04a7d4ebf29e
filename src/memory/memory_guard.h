#pragma once
// Memory around a configuration's run (profile, generate): what was free before it, and a failure message that names
// the out-of-memory killer when it ended the runner. The need itself is the model's predicted peak
// (model_memory.h predict_model_memory; a decoder's: kv_cache.h DecoderSteps::need).
#include <cstdint>
#include <optional>
#include <string>

#include "memory/system_memory.h"

namespace rooflens {

// What the free memory and the OOM killer's count were just before a run.
struct MemoryBefore {
  FreeMemory free;
  std::optional<uint64_t> oom_kills;
  uint64_t need = 0;
};

// The message of a runner that died during a run: when the cgroup's OOM count rose meanwhile, or the runner was
// killed outright while its need exceeded the free memory, it says the kernel ended it for memory, with the figures
// and what to do; otherwise `message` as it was.
std::string died_message(const std::string& message, const MemoryBefore& before, const std::string& label);

}  // namespace rooflens
