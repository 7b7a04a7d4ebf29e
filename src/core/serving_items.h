#pragma once
// The items `compare` and the results database keep of a decoder's serving runs (`capacity` on a decoder, one run or
// each run of --find-peak or --sweep, and `import vllm|aiperf`), named after what the run served:
//   "<label> · TTFT" and "<label> · TPOT"  each completed request's (ms)
//   "<label> · output ms/token"            one value: 1000 / output tokens per second, the machine's throughput in
//                                          the form every other item has (lower is better)
// A file that gave only a summary has no per-request samples: its items carry the summary's figures instead.
#include <string>
#include <vector>

#include "core/report.h"

namespace rooflens {

struct ServingItem {
  std::string config;
  std::vector<double> samples_ms;  // empty for a summary-only file
  LatencyStats stats;
};

// "continuous max-batch=8 threads=2 · server qps=2.5": the levers, then the load (what a user varies between runs).
std::string serving_label(const ServingSettings& s);
// The serving runs a report holds: its one run, or every run of its search.
std::vector<const ServingResult*> serving_runs(const Report& r);
std::vector<ServingItem> serving_items(const ServingResult& run);

inline constexpr const char* kOutputMsPerTokenItem = " · output ms/token";

// What shaped a serving report's samples, as compact JSON for its results-database session: the first run's settings
// (a search's runs differ only in the lever it varies, which each run's label names) and the search. "{}" for none.
std::string serving_settings_json(const Report& r);

}  // namespace rooflens
