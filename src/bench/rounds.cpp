#include "bench/rounds.h"

#include <algorithm>

#include "core/stats.h"

namespace rooflens::bench {

bool entry_is_final(const BenchEntry& merged, int64_t rounds_done, int64_t rounds) {
  return merged.status != "pass" || rounds_done >= rounds;
}

void merge_round(BenchEntry& merged, const BenchEntry& next, int64_t round, int64_t rounds) {
  merged.wall_s += next.wall_s;
  if (next.status != "pass") {
    merged.status = next.status;
    merged.stage = next.stage;
    merged.error_type = next.error_type;
    merged.message = "round " + std::to_string(round) + " of " + std::to_string(rounds) + ": " + next.message;
    merged.stderr_tail = next.stderr_tail;
    return;
  }
  if (next.latencies_ms.empty()) return;
  // Timed time of each part, from its throughput (samples / timed seconds), so the merged throughput is
  // all samples over all timed seconds, as one long run would give.
  auto timed_s = [](const BenchEntry& e) {
    return e.throughput_per_s > 0 ? static_cast<double>(e.latencies_ms.size()) / e.throughput_per_s : 0.0;
  };
  const double seconds = timed_s(merged) + timed_s(next);
  if (merged.repetitions.empty() && !merged.latencies_ms.empty())
    merged.repetitions = {static_cast<int64_t>(merged.latencies_ms.size())};
  merged.latencies_ms.insert(merged.latencies_ms.end(), next.latencies_ms.begin(), next.latencies_ms.end());
  merged.repetitions.push_back(static_cast<int64_t>(next.latencies_ms.size()));
  merged.latency_ms = summarize(merged.latencies_ms);
  merged.throughput_per_s = seconds > 0 ? static_cast<double>(merged.latencies_ms.size()) / seconds : 0;
  merged.peak_rss_bytes = std::max(merged.peak_rss_bytes, next.peak_rss_bytes);
}

}  // namespace rooflens::bench
