#include "capacity/generative/lengths.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/errors.h"
#include "stats/normal.h"
#include "stats/splitmix64.h"

namespace rooflens::capacity::generative {
namespace {

// A whole positive number of tokens, or UsageError naming the flag and the text.
int64_t token_count(const std::string& text, const std::string& flag, const std::string& whole) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 1 || v > 10'000'000)
    throw UsageError(flag + " " + whole + ": '" + text + "' is not a token count (a whole number from 1)");
  return v;
}

double positive_number(const std::string& text, const std::string& flag, const std::string& whole, bool zero_ok) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0 || (!zero_ok && v == 0) || v > 1e7)
    throw UsageError(flag + " " + whole + ": '" + text + "' is not a " + (zero_ok ? "non-negative" : "positive") +
                     " number up to 10,000,000");
  return v;
}

LengthSpec parse_spec(const std::string& text, const std::string& flag) {
  const std::string forms = " (give 128, uniform:64-256 or normal:550,150)";
  LengthSpec s;
  if (text.rfind("uniform:", 0) == 0) {
    const std::string range = text.substr(8);
    const size_t dash = range.find('-');
    if (dash == std::string::npos) throw UsageError(flag + " " + text + ": uniform needs LOW-HIGH" + forms);
    s.kind = LengthSpec::Kind::uniform;
    s.low = token_count(range.substr(0, dash), flag, text);
    s.high = token_count(range.substr(dash + 1), flag, text);
    if (s.low > s.high) throw UsageError(flag + " " + text + ": LOW is above HIGH");
    return s;
  }
  if (text.rfind("normal:", 0) == 0) {
    const std::string args = text.substr(7);
    const size_t comma = args.find(',');
    if (comma == std::string::npos) throw UsageError(flag + " " + text + ": normal needs MEAN,STDDEV" + forms);
    s.kind = LengthSpec::Kind::normal;
    s.mean = positive_number(args.substr(0, comma), flag, text, false);
    s.stddev = positive_number(args.substr(comma + 1), flag, text, true);
    return s;
  }
  if (text.find_first_not_of("0123456789") != std::string::npos) throw UsageError(flag + " " + text + ": unknown form" + forms);
  s.value = token_count(text, flag, text);
  return s;
}

std::vector<MixtureEntry> parse_mixture(const std::string& text, const std::string& flag) {
  std::vector<MixtureEntry> out;
  size_t at = 0;
  double total = 0;
  while (at <= text.size()) {
    size_t comma = text.find(',', at);
    const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const size_t colon = item.find(':'), weight_at = item.find('@');
    if (colon == std::string::npos || weight_at == std::string::npos || weight_at < colon)
      throw UsageError(flag + " " + text + ": '" + item + "' is not INPUT:OUTPUT@WEIGHT (e.g. 128:32@70,512:128@30)");
    MixtureEntry e;
    e.shape.input_tokens = token_count(item.substr(0, colon), flag, text);
    e.shape.output_tokens = token_count(item.substr(colon + 1, weight_at - colon - 1), flag, text);
    e.weight = positive_number(item.substr(weight_at + 1), flag, text, false);
    total += e.weight;
    out.push_back(e);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  for (auto& e : out) e.weight /= total;
  return out;
}

int64_t draw_one(const LengthSpec& s, stats::SplitMix64& rng) {
  switch (s.kind) {
    case LengthSpec::Kind::fixed: return s.value;
    case LengthSpec::Kind::uniform:
      return s.low + static_cast<int64_t>(rng.next() % static_cast<uint64_t>(s.high - s.low + 1));
    case LengthSpec::Kind::normal: {
      // The inverse normal CDF of a uniform draw: one draw per value, the same on every library.
      const double u = std::clamp(rng.uniform(), 1e-12, 1 - 1e-12);
      return std::max<int64_t>(1, std::llround(s.mean + s.stddev * stats::normal_quantile(u)));
    }
  }
  return s.value;
}

std::string spec_text(const LengthSpec& s) {
  switch (s.kind) {
    case LengthSpec::Kind::fixed: return std::to_string(s.value);
    case LengthSpec::Kind::uniform: return "uniform:" + std::to_string(s.low) + "-" + std::to_string(s.high);
    case LengthSpec::Kind::normal: {
      auto trim = [](double v) {
        std::string t = std::to_string(v);
        t.erase(t.find_last_not_of('0') + 1);
        if (!t.empty() && t.back() == '.') t.pop_back();
        return t;
      };
      return "normal:" + trim(s.mean) + "," + trim(s.stddev);
    }
  }
  return "";
}

}  // namespace

LengthPlan parse_length_plan(const std::string& input_flag, const std::string& output_flag) {
  LengthPlan p;
  if (input_flag.find('@') != std::string::npos) {
    if (!output_flag.empty())
      throw UsageError("--output-tokens " + output_flag + ": a mixture in --input-tokens (" + input_flag +
                       ") gives the output lengths too; leave --output-tokens out");
    p.mixture = parse_mixture(input_flag, "--input-tokens");
    return p;
  }
  p.input = parse_spec(input_flag, "--input-tokens");
  p.output = parse_spec(output_flag.empty() ? "32" : output_flag, "--output-tokens");
  return p;
}

std::vector<RequestShape> draw_shapes(const LengthPlan& plan, int64_t count, uint64_t seed) {
  stats::SplitMix64 rng(seed);
  std::vector<RequestShape> out;
  out.reserve(static_cast<size_t>(std::max<int64_t>(0, count)));
  for (int64_t i = 0; i < count; ++i) {
    if (!plan.mixture.empty()) {
      double u = rng.uniform();
      const MixtureEntry* pick = &plan.mixture.back();
      for (const auto& e : plan.mixture) {
        if (u < e.weight) {
          pick = &e;
          break;
        }
        u -= e.weight;
      }
      out.push_back(pick->shape);
      continue;
    }
    RequestShape s;
    s.input_tokens = draw_one(plan.input, rng);
    s.output_tokens = draw_one(plan.output, rng);
    out.push_back(s);
  }
  return out;
}

std::string describe(const LengthPlan& plan) {
  if (plan.mixture.empty()) return spec_text(plan.input) + " in / " + spec_text(plan.output) + " out";
  std::string t = "mixture ";
  for (size_t i = 0; i < plan.mixture.size(); ++i) {
    const auto& e = plan.mixture[i];
    t += (i ? "," : "") + std::to_string(e.shape.input_tokens) + ":" + std::to_string(e.shape.output_tokens) + "@" +
         std::to_string(static_cast<int>(std::lround(e.weight * 100)));
  }
  return t;
}

}  // namespace rooflens::capacity::generative
