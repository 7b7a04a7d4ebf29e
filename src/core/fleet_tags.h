#pragma once
// The tags a fleet run's tasks store their sessions under (fleet/plan.h writes them, db/ and history/ read them):
// one spelling for every scheduler. A session tagged fleet=ID belongs to that fleet run; a later session of the
// same fleet with the same model and configuration supersedes the earlier one (a requeued or retried task).
namespace rooflens {

inline constexpr const char* kFleetTag = "fleet";          // the fleet run's id ("bench-20261129T001500Z-a1b2")
inline constexpr const char* kTaskTag = "task";            // the task's 0-based index in the fleet
inline constexpr const char* kAttemptTag = "attempt";      // which run of that task (0 = the first)
inline constexpr const char* kNodeTag = "node";            // the scheduler's name of the machine it ran on
inline constexpr const char* kSchedulerTag = "scheduler";  // slurm | kubernetes | github-actions

}  // namespace rooflens
