// Fuzz target (fuzz_targets.h) over what the Slurm tools print, which rooflens reads while it follows a fleet
// (fleet/slurm.h): squeue, sacct and scontrol lines, sbatch's job id, and --slurm-opt text. Any input ends in states
// or a UsageError: never a crash, a hang or a sanitizer report; a task index is always one of the array's.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/errors.h"
#include "fleet/slurm.h"
#include "fuzz_targets.h"

int rooflens::fuzz::fleet(const uint8_t* data, size_t size) {
  using namespace rooflens::fleet;
  const std::string text(reinterpret_cast<const char*>(data), size);
  constexpr int64_t kTasks = 4;
  for (const std::string job : {"12", "1"}) {
    auto live = parse_squeue(text, job);
    auto ended = parse_sacct(text, job);
    auto more = parse_scontrol(text, job);
    ended.insert(ended.end(), more.begin(), more.end());
    for (bool all_ended : {false, true}) {
      auto merged = merge_states(kTasks, live, ended, all_ended);
      if (static_cast<int64_t>(merged.size()) != kTasks) std::abort();
      for (int64_t i = 0; i < kTasks; ++i)
        if (merged[static_cast<size_t>(i)].index != i) std::abort();
      const PhaseCounts c = count_phases(merged);
      if (c.pending + c.running + c.done + c.failed != kTasks) std::abort();
    }
  }
  (void)parsable_job_id(text);
  try {
    for (const auto& w : split_sbatch_options(text))
      if (w.empty() || w[0] != '-') std::abort();
  } catch (const rooflens::UsageError&) {
  }
  return 0;
}
