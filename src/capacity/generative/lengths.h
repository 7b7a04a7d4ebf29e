#pragma once
// How long each generation request's prompt and output are: fixed, or drawn from a seeded distribution, as the
// serving benchmarks give them (vLLM's random dataset, AIPerf's --isl/--osl with a stddev, its sequence
// distributions). Draws come from SplitMix64 (stats/splitmix64.h), so one seed gives the same requests everywhere.
//
//   "128"                  every request 128 tokens
//   "uniform:64-256"       integers uniform in [64, 256]
//   "normal:550,150"       mean 550, standard deviation 150, rounded, at least 1
//   "128:32@70,512:128@30" (--input-tokens only) a mixture of (input:output) pairs with weights, for both lengths
#include <cstdint>
#include <string>
#include <vector>

namespace rooflens::capacity::generative {

struct RequestShape {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  bool operator==(const RequestShape&) const = default;
};

struct LengthSpec {
  enum class Kind { fixed, uniform, normal } kind = Kind::fixed;
  int64_t value = 0;          // fixed
  int64_t low = 0, high = 0;  // uniform, inclusive
  double mean = 0, stddev = 0;  // normal
};

struct MixtureEntry {
  RequestShape shape;
  double weight = 0;
};

// Both lengths: one distribution each, or a mixture of pairs (then `output` is unused).
struct LengthPlan {
  LengthSpec input, output;
  std::vector<MixtureEntry> mixture;
};

// Parses --input-tokens and --output-tokens; UsageError naming the flag and the form expected. A mixture is only
// accepted for --input-tokens, and then --output-tokens must be empty.
LengthPlan parse_length_plan(const std::string& input_flag, const std::string& output_flag);

// `count` request shapes drawn from the plan with `seed`.
std::vector<RequestShape> draw_shapes(const LengthPlan& plan, int64_t count, uint64_t seed);

// "128 in / 32 out", "uniform:64-256 in / 32 out", "mixture 128:32@70,512:128@30": what a report says it ran.
std::string describe(const LengthPlan& plan);

}  // namespace rooflens::capacity::generative
