#pragma once
// The tag keys a fleet's tasks store their sessions and scores under (`--tag key=value`, cli/db_flags.h). One
// spelling for every side: the code that submits a fleet and writes these tags into each task's command line, the
// store that supersedes a retried task's results by them (db/fleet_store.h), and `history --fleet`, which groups
// by them. Values are free text; only the keys are fixed. docs/history.md, "Fleets".
namespace rooflens {

// The fleet's id: every task of one fleet run carries the same value ("bench-20261129T001500Z-a1b2"). Results
// stored twice under one fleet value (a requeued or retried task) are kept once: the latest supersedes the others.
inline constexpr const char* kFleetTag = "fleet";
// The task's index in the fleet (a Slurm array index, a Kubernetes completion index): "2".
inline constexpr const char* kTaskTag = "task";
// Which attempt of that task stored the results, from 0 (Slurm's restart count on a requeue, a retry's number).
inline constexpr const char* kAttemptTag = "attempt";
// The host name the task ran on (several nodes may share one machine fingerprint).
inline constexpr const char* kNodeTag = "node";
// What ran the fleet: slurm | kubernetes | github-actions.
inline constexpr const char* kSchedulerTag = "scheduler";
// The scheduler's own id of the fleet's job, one key per scheduler: Slurm's array job id, the Kubernetes Job's name,
// the GitHub Actions run id.
inline constexpr const char* kSlurmJobTag = "slurm_job";
inline constexpr const char* kKubernetesJobTag = "k8s_job";
inline constexpr const char* kActionsRunTag = "actions_run";

}  // namespace rooflens
