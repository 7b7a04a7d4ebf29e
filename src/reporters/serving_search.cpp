#include "reporters/serving_search.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/text_table.h"
#include "reporters/serving_summary.h"

namespace rooflens {
namespace {

double axis_value(const ServingSearch& s, const ServingSettings& r) {
  if (s.axis == "qps") return r.rate;
  if (s.axis == "users") return static_cast<double>(r.users);
  return static_cast<double>(r.max_batch);
}

std::string point_text(const std::string& axis, double x) {
  if (axis == "qps") return fmt::format("{:.3g} requests/s", x);
  if (axis == "users") return fmt::format("{:g} users", x);
  return fmt::format("max batch {:g}", x);
}

std::string outcome(const ServingSearch& s) {
  std::string out;
  if (s.kind == "find-peak") {
    if (s.peak > 0)
      out = fmt::format("peak: {} VALID{}", point_text(s.axis, s.peak),
                        s.upper > 0 ? fmt::format(", {} INVALID", point_text(s.axis, s.upper)) : std::string());
    else
      out = "peak: no VALID " + std::string(s.axis == "qps" ? "rate" : "user count") + " found";
    if (s.converged) out += s.axis == "qps" ? fmt::format(" (converged to {:g}%)", s.precision * 100) : " (converged)";
    out += "\n";
    if (s.predicted_peak > 0) {
      out += "predicted peak (the same search on the simulation): " + point_text(s.axis, s.predicted_peak);
      if (s.peak > 0) out += fmt::format(" ({:+.0f}% against the measured peak)", 100 * (s.predicted_peak - s.peak) / s.peak);
      out += "\n";
    }
  } else {
    std::string front;
    for (int64_t i : s.pareto)
      front += (front.empty() ? "" : ", ") + point_text(s.axis, axis_value(s, s.runs[static_cast<size_t>(i)].settings));
    out = "Pareto front (tokens/s per user against output tokens/s): " + (front.empty() ? "none" : front) + "\n";
    out += s.knee >= 0 ? "knee: " + point_text(s.axis, axis_value(s, s.runs[static_cast<size_t>(s.knee)].settings)) +
                             " — past it, machine tokens/s costs each user more than it adds\n"
                       : "knee: none (fewer than three points on the front)\n";
  }
  if (!s.stopped.empty()) out += s.stopped + "\n";
  return out;
}

}  // namespace

std::string serving_search_summary(const ServingSearch& s, const std::string& model, const std::string& runtime) {
  std::string out = outcome(s);
  if (s.runs.empty()) return out;
  const ServingSettings& first = s.runs.front().settings;
  out += fmt::format("\n{} on {}: {} requests each ({}), {} batching, {} intra-op thread(s); objectives {}\n\n", model,
                     runtime, first.requests, first.lengths, first.batching, first.threads, serving_objectives(first));
  // The latencies at the percentile judged (or the stored one just under it).
  const char* pct = at_or_below(ServingDistribution{}, first.percentile).name;
  TextTable t;
  t.columns = {{s.axis},          {"verdict"},          {fmt::format("TTFT {} ms", pct), true}, {fmt::format("TPOT {} ms", pct), true},
               {"output tok/s", true}, {"tok/s per user", true}, {"goodput req/s", true}, {"predicted", true}};
  const bool sweep = s.kind == "sweep";
  if (sweep) t.columns.push_back({"Pareto"});
  for (size_t i = 0; i < s.runs.size(); ++i) {
    const ServingResult& r = s.runs[i];
    const ServingSummary& m = r.summary;
    std::string predicted = "-";
    if (r.predicted)
      predicted = fmt::format("{} {:.3g} req/s", r.predicted->valid ? "VALID" : "INVALID", r.predicted->summary.goodput);
    const bool on_front = std::find(s.pareto.begin(), s.pareto.end(), static_cast<int64_t>(i)) != s.pareto.end();
    std::vector<std::string> row{fmt::format("{:g}", axis_value(s, r.settings)), r.verdict.valid ? "VALID" : "INVALID",
                      fmt::format("{:.1f}", at_or_below(m.ttft_ms, first.percentile).value),
                      fmt::format("{:.1f}", at_or_below(m.tpot_ms, first.percentile).value),
                      fmt::format("{:.1f}", m.output_tokens_per_s), fmt::format("{:.1f}", m.tokens_per_s_per_user.mean),
                      fmt::format("{:.3g}", m.goodput), predicted};
    if (sweep) row.push_back(static_cast<int64_t>(i) == s.knee ? "knee" : on_front ? "front" : "");
    t.rows.push_back(std::move(row));
  }
  out += t.render();
  out += "\n(each run's reasons and full percentiles: --json or -o FILE)\n";
  return out;
}

}  // namespace rooflens
