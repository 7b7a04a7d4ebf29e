#pragma once
// `rooflens capacity` on a decoder with `--find-peak` or `--sweep` (docs/capacity.md, "Generative serving"):
// - find-peak: the highest server rate (or, for the concurrency scenario, the most users) that is VALID. The same
//   search runs first on the simulation with the calibrated step times (the predicted peak, on virtual time), and the
//   live search starts from it, so a good prediction costs the live search few points; both bracket and bisect as
//   the single-pass --find-peak does (capacity/loadgen/find_peak.h: search_peak).
// - sweep: one live run per value of one lever (max-batch, users or qps), each with its prediction, and the Pareto
//   front of tokens/s per user against tokens/s of the machine with its knee (stats/pareto.h), as AIPerf's sweeps
//   chart it.
#include <cstdint>
#include <vector>

#include "capacity/serve_decoder.h"

namespace rooflens::capacity {

enum class ServingAxis { qps, users, max_batch };
const char* axis_name(ServingAxis a);  // "qps", "users", "max-batch"

struct DecoderSearchSpec {
  ServingAxis axis = ServingAxis::qps;
  std::vector<double> sweep;   // the values of a sweep; empty: find-peak
  double start = 0;            // find-peak's first live point when nothing VALID was predicted (0: 1)
  double precision = 0.1;      // find-peak on a rate: stop when (upper - lower) / lower is this small (--precision)
  int max_runs = 12;           // live points at most
  double budget_s = 600;       // start no live point after this long (--budget; 0: no limit)
  bool users_follow_max_batch = false;  // a max-batch sweep of the concurrency scenario without --users
};

// The most sequences in flight any run of the command has: --max-batch, or a max-batch sweep's largest value.
int64_t largest_max_batch(const DecoderServingSpec& spec, const DecoderSearchSpec* search);

// A find-peak whose every point would be INVALID by its length alone would walk down to rates that take hours:
// refused (UsageError) before the first point — no objectives, or fewer requests a point than early stopping needs
// for the percentile with none over a limit.
void check_peak_can_hold(const DecoderServingSpec& spec);

ServingSearch search_decoder(const DecoderServingSpec& spec, const DecoderSearchSpec& search, Backend& backend);

}  // namespace rooflens::capacity
