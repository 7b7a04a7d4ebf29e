#pragma once
// `rooflens bench --repeat N`: N rounds over the whole zoo, so each model × configuration is timed N times, each
// time in a fresh runner and at another moment of the run. Each round of an entry is journaled on its own (a
// killed run keeps every finished round); an entry is the merge of its rounds: round 1 (validation, metrics, the
// first samples) plus the samples of each later round. An entry is final when all its rounds ran or one of them
// did not pass (a model that fails now and then is failing).
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "core/bench_results.h"

namespace rooflens::bench {

// How far an entry (model, config) got: rounds journaled, and whether nothing more will run for it.
struct EntryProgress {
  int64_t rounds = 0;
  bool final = false;
  std::string status;   // of the merged entry
};
using EntryKey = std::pair<std::string, std::string>;  // (model, config)
using EntryProgressMap = std::map<EntryKey, EntryProgress>;

// True when no further round runs for an entry after `rounds_done` of `rounds`.
bool entry_is_final(const BenchEntry& merged, int64_t rounds_done, int64_t rounds);

// Folds round `round` (2..rounds) of an entry into the merge of its earlier rounds. A passing round adds its
// samples as one more repetition (statistics over all samples, throughput over the summed timed time, the highest
// peak RSS); a failing one sets the entry's status, stage, error and stderr tail, its message prefixed
// "round R of N: ". wall_s adds up; load_ms and validation stay round 1's.
void merge_round(BenchEntry& merged, const BenchEntry& next, int64_t round, int64_t rounds);

}  // namespace rooflens::bench
