#pragma once
// The harness: how a score figure is measured, in one place. The served kind takes its capacity settings from here
// and the decoder kind its generation settings, so what a figure measures is defined once; the **harness
// fingerprint** names every piece of it that changes a figure's value — the mode's repetitions and durations, the
// single-stream query count and statistic, the offline concurrency and calls per message, the generation's
// requests, the runner protocol, the build rooflens' own code was compiled with.
//
// The suite records, per mode, the fingerprint its reference constants were measured with (suite.h,
// ModeConstants::harness); a result records the fingerprint it was measured with. A score whose fingerprint differs
// from its constants' holds two different measurements against each other: the result says so (harness_warning).
// A unit test holds the built-in suite's recorded fingerprints to what this code computes, so a change of the
// harness without new constants fails the build's tests (docs/score.md, "Reference constants").
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "capacity/loadgen/settings.h"
#include "score/suite.h"

namespace rooflens::score {

using HarnessFingerprint = std::map<std::string, std::string>;

// The ONNX Runtime runner protocol (runners/ort/run.mjs PROTOCOL_VERSION, docs/runner-protocol.md) the figures are
// defined with: a runner that answers differently measures something else. A test holds it to run.mjs's.
inline constexpr int kRunnerProtocol = 1;

// Single-stream latency: the p90 (nearest rank) of exactly mode.latency_queries queries; MLPerf's early stopping at
// 99% confidence must pass too (it needs 64).
inline constexpr double kLatencyPercentile = 90, kLatencyConfidence = 0.99;
// Offline: messages waiting in each runner (the next one is there when a call ends).
inline constexpr int64_t kOfflineConcurrency = 2;
// Decoders: untimed requests before the timed ones of a repetition.
inline constexpr int64_t kGenerateWarmupRequests = 1;

// Capacity's settings and levers for a served workload's single-stream latency: one instance on every core.
capacity::Requested latency_settings(const ModeSettings& mode);
capacity::LeverLists latency_levers(int64_t cores);
// ...and for its offline throughput: with no configuration known yet (the search before the repetitions) one
// instance on every core and one instance per core, else the known configuration.
capacity::Requested throughput_settings(const ModeSettings& mode, bool search);
capacity::LeverLists throughput_levers(const std::optional<CapacityConfig>& known, int64_t cores);

// The build whose figures the constants mean: the Release build with rooflens' own code at its configured
// optimisation level (CMake's ROOFLENS_OPT_LEVEL), whatever build computes the fingerprint.
std::string release_build();
// This binary's build: release_build() in a Release build, otherwise what it is ("San, AddressSanitizer ...").
std::string this_build();

// The fingerprint of figures measured in `mode` by a build described by `build`.
HarnessFingerprint harness_fingerprint(const ModeSettings& mode, const std::string& build);

// The keys of two fingerprints that differ, "key: a → b" joined by "; " ("" when equal).
std::string fingerprint_difference(const HarnessFingerprint& constants, const HarnessFingerprint& measured);

// One line when scores of `measured` (a result's fingerprint) against the suite's constants of that mode are not
// what they say: the constants recorded no harness, or another one, or are provisional. nullopt when they match.
std::optional<std::string> harness_warning(const Suite& suite, bool quick, const HarnessFingerprint& measured);

}  // namespace rooflens::score
