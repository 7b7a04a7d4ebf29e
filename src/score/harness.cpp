#include "score/harness.h"

#include <algorithm>

#include <fmt/format.h>

namespace rooflens::score {
namespace {

#ifndef ROOFLENS_OWN_OPT_LEVEL
#error "ROOFLENS_OWN_OPT_LEVEL (CMake's ROOFLENS_OPT_LEVEL) must be defined by the build"
#endif
#ifndef ROOFLENS_BUILD_TYPE
#error "ROOFLENS_BUILD_TYPE (CMake's CMAKE_BUILD_TYPE) must be defined by the build"
#endif

std::string number(double x) { return fmt::format("{:g}", x); }

}  // namespace

capacity::Requested latency_settings(const ModeSettings& mode) {
  capacity::Requested s;
  s.scenario = Scenario::single_stream;
  s.percentile = kLatencyPercentile;
  s.confidence = kLatencyConfidence;
  s.min_duration_s = 0;  // the query count decides
  s.min_queries = mode.latency_queries;
  s.max_queries = mode.latency_queries;
  s.predict = false;
  s.seed = 1;
  return s;
}

capacity::LeverLists latency_levers(int64_t cores) {
  capacity::LeverLists levers;
  levers.threads = {cores};
  return levers;
}

capacity::Requested throughput_settings(const ModeSettings& mode, bool search) {
  capacity::Requested s;
  s.scenario = Scenario::offline;
  s.min_duration_s = mode.offline_seconds;
  s.min_queries = mode.offline_min_queries;
  s.predict = false;
  s.seed = 1;
  s.search = search;  // with no budget: every configuration of the search runs
  return s;
}

capacity::LeverLists throughput_levers(const std::optional<CapacityConfig>& known, int64_t cores) {
  capacity::LeverLists levers;
  levers.concurrency = {kOfflineConcurrency};
  if (known) {
    levers.instances = {known->instances};
    levers.threads = {known->threads};
  } else {
    levers.instances = cores > 1 ? std::vector<int64_t>{1, cores} : std::vector<int64_t>{1};
    levers.threads = {0};  // the cores divided among the instances
  }
  return levers;
}

std::string release_build() { return fmt::format("Release, rooflens' own code at {}", ROOFLENS_OWN_OPT_LEVEL); }

std::string this_build() {
  const std::string type = ROOFLENS_BUILD_TYPE;
#ifdef ROOFLENS_SANITIZED
  return type + " with AddressSanitizer and UndefinedBehaviorSanitizer";
#else
  return type == "Release" ? release_build() : type;
#endif
}

HarnessFingerprint harness_fingerprint(const ModeSettings& mode, const std::string& build) {
  const capacity::Requested lat = latency_settings(mode), thr = throughput_settings(mode, false);
  return {
      {"build", build},
      {"runner_protocol", std::to_string(kRunnerProtocol)},
      {"repetitions", std::to_string(mode.repetitions)},
      {"figure", "geometric mean of the repetitions, each in fresh runner processes"},
      {"latency", fmt::format("single-stream, one instance on every core, p{} (nearest rank) of {} queries; early "
                              "stopping at {}% confidence must pass",
                              number(*lat.percentile), *lat.min_queries, number(lat.confidence * 100))},
      // "per request" is the fingerprint's wording from before a runner's message had its own word: the suite file
      // and stored results hold this text, and a new one would read as another harness.
      {"throughput", fmt::format("offline, >= {} s and >= {} queries, concurrency {}, ~{} ms of calls per request; "
                                 "a search before the repetitions, not one of them, picks the best of one instance on every "
                                 "core and one per core",
                                 number(*thr.min_duration_s), *thr.min_queries, kOfflineConcurrency,
                                 number(thr.offline_message_ms))},
      {"samples", fmt::format("{} seeded samples per instance (seed {})", lat.sample_count, lat.seed)},
      {"generation", fmt::format("batch 1, {} untimed then {} timed requests; the median per repetition",
                                 kGenerateWarmupRequests, mode.generate_requests)},
  };
}

std::string fingerprint_difference(const HarnessFingerprint& constants, const HarnessFingerprint& measured) {
  std::string out;
  auto add = [&](const std::string& key, const std::string& a, const std::string& b) {
    out += fmt::format("{}{}: {} → {}", out.empty() ? "" : "; ", key, a.empty() ? "(none)" : a, b.empty() ? "(none)" : b);
  };
  for (const auto& [k, v] : constants) {
    auto it = measured.find(k);
    if (it == measured.end()) add(k, v, "");
    else if (it->second != v) add(k, v, it->second);
  }
  for (const auto& [k, v] : measured)
    if (!constants.count(k)) add(k, "", v);
  return out;
}

std::optional<std::string> harness_warning(const Suite& suite, bool quick, const HarnessFingerprint& measured) {
  const std::string mode = mode_name(quick);
  auto it = suite.constants.find(mode);
  if (it == suite.constants.end() || it->second.harness.empty())
    return fmt::format("suite {} records no harness for its {} constants: they may measure something else than "
                       "this run did", suite.version, mode);
  if (const std::string d = fingerprint_difference(it->second.harness, measured); !d.empty())
    return fmt::format("suite {}'s {} constants were measured with another harness ({}): these scores hold two "
                       "different measurements against each other", suite.version, mode, d);
  if (it->second.provisional)
    return fmt::format("suite {}'s {} constants are provisional (measured on a shared machine while the suite was "
                       "made): compare these scores with nothing until the reference configuration measures them",
                       suite.version, mode);
  return std::nullopt;
}

}  // namespace rooflens::score
