#include "capacity/search_decoder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "capacity/calibrate_decoder.h"
#include "capacity/loadgen/early_stopping.h"
#include "capacity/loadgen/find_peak.h"
#include "core/errors.h"
#include "stats/pareto.h"

namespace rooflens::capacity {
namespace {

// The spec of one point of the search: the axis set to `x`.
DecoderServingSpec at_point(const DecoderServingSpec& spec, const DecoderSearchSpec& search, double x) {
  DecoderServingSpec p = spec;
  switch (search.axis) {
    case ServingAxis::qps:
      p.load.kind = generative::LoadKind::server;
      p.load.rate = x;
      break;
    case ServingAxis::users:
      p.load.users = static_cast<int64_t>(x);
      break;
    case ServingAxis::max_batch:
      p.batcher.max_batch = static_cast<int64_t>(x);
      if (search.users_follow_max_batch) p.load.users = p.batcher.max_batch;
      break;
  }
  return p;
}

std::string describe_point(ServingAxis axis, double x) {
  switch (axis) {
    case ServingAxis::qps: return fmt::format("{:.3g} requests/s", x);
    case ServingAxis::users: return fmt::format("{:g} users", x);
    case ServingAxis::max_batch: return fmt::format("max batch {:g}", x);
  }
  return "";
}

// A point that says no lower load can cure it: a latency over its limit at the judged percentile (not merely too few
// requests for early stopping), with nothing queued and no step shared — each request alone missed.
std::optional<std::string> beyond_any_load(const ServingResult& r, const generative::Slo& slo, ServingAxis axis,
                                           double x) {
  if (r.verdict.valid || !r.fault.empty() || r.interrupted) return std::nullopt;
  if (r.summary.queue_ms.p99 > 1.0 || r.max_batch_seen > 1) return std::nullopt;
  const ServingSummary& m = r.summary;
  const bool over = (slo.ttft_ms > 0 && at_or_below(m.ttft_ms, slo.percentile).value > slo.ttft_ms) ||
                    (slo.tpot_ms > 0 && at_or_below(m.tpot_ms, slo.percentile).value > slo.tpot_ms) ||
                    (slo.e2e_ms > 0 && at_or_below(m.e2e_ms, slo.percentile).value > slo.e2e_ms);
  if (!over) return std::nullopt;
  return fmt::format("find-peak stopped at {}: no request queued and none shared a step, yet a latency is over its "
                     "limit — each request alone misses the objectives, so no lower load meets them: raise --slo, "
                     "lower --percentile or shorten the requests", describe_point(axis, x));
}

generative::BatcherSettings with_budget(const DecoderServingSpec& p, const KvBudget& budget) {
  generative::BatcherSettings b = p.batcher;
  b.kv_budget_tokens = budget.tokens;
  return b;
}

// One live point, with what the simulation predicts for it.
ServingResult serve_point(const DecoderServingSpec& p, const KvBudget& budget, DecoderGeneration& generation,
                          const std::optional<DecoderCalibration>& cal) {
  ServingResult r = serve_live(p, p.batcher, budget, generation);
  if (cal) r.predicted = predict_serving(p, with_budget(p, budget), *cal);
  return r;
}

PeakOptions peak_options(const DecoderSearchSpec& search, double start) {
  PeakOptions o;
  o.whole = search.axis != ServingAxis::qps;
  o.start_qps = start;
  o.precision = search.precision;
  o.max_runs = search.max_runs;
  o.floor_qps = o.whole ? 1 : 0.01;
  return o;
}

void find_peak_live(const DecoderServingSpec& spec, const DecoderSearchSpec& search, const KvBudget& budget,
                    DecoderGeneration& generation, const std::optional<DecoderCalibration>& cal, ServingSearch& out) {
  // The simulation's search: cheap (virtual time), so it may run to the live search's precision.
  double start = search.start > 0 ? search.start : 1;
  if (cal) {
    PeakOptions o = peak_options(search, start);
    o.max_runs = 60;
    const PeakOutcome predicted = search_peak(o, [&](double x) {
      const DecoderServingSpec p = at_point(spec, search, x);
      return PeakProbe{predict_serving(p, with_budget(p, budget), *cal).valid, false};
    });
    out.predicted_peak = predicted.peak.qps;
    if (out.predicted_peak > 0) start = out.predicted_peak;
    if (spec.progress)
      spec.progress(out.predicted_peak > 0 ? "predicted peak: " + describe_point(search.axis, out.predicted_peak)
                                           : "the simulation found no VALID load; searching live from " +
                                                 describe_point(search.axis, start));
  }
  const auto began = std::chrono::steady_clock::now();
  PeakOptions o = peak_options(search, start);
  if (search.budget_s > 0)
    o.out_of_time = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() >= search.budget_s;
    };
  const PeakOutcome found = search_peak(o, [&](double x) {
    if (spec.progress) spec.progress("find-peak: trying " + describe_point(search.axis, x));
    DecoderServingSpec p = at_point(spec, search, x);
    p.progress = nullptr;  // a line per point, not per request
    ServingResult r = serve_point(p, budget, generation, cal);
    PeakProbe probe{r.verdict.valid, !r.fault.empty() || r.interrupted};
    if (!r.fault.empty()) out.stopped = "find-peak stopped: a run failed (" + r.fault + ")";
    if (r.interrupted) out.stopped = "find-peak stopped: interrupted";
    const bool any_valid = std::any_of(out.runs.begin(), out.runs.end(),
                                       [](const ServingResult& q) { return q.verdict.valid; });
    if (!probe.stop && !any_valid)
      if (std::optional<std::string> why = beyond_any_load(r, spec.slo, search.axis, x)) {
        out.stopped = *why;
        probe.stop = true;
      }
    if (spec.progress) spec.progress(describe_point(search.axis, x) + (r.verdict.valid ? ": VALID" : ": INVALID"));
    out.runs.push_back(std::move(r));
    return probe;
  });
  out.peak = found.peak.qps;
  out.lower = found.peak.lower;
  out.upper = found.peak.upper;
  out.precision = search.axis == ServingAxis::qps ? search.precision : 0;
  out.converged = found.peak.converged;
  if (found.out_of_time) out.stopped = fmt::format("find-peak stopped: --budget {:g}s ran out", search.budget_s);
  else if (out.stopped.empty() && found.peak.qps <= 0 && found.peak.upper > 0)
    out.stopped = "find-peak stopped: nothing VALID down to " + describe_point(search.axis, found.peak.upper);
  else if (out.stopped.empty() && !found.peak.converged)
    out.stopped = fmt::format("find-peak stopped after {} runs without converging (raise --precision)", out.runs.size());
}

void sweep_live(const DecoderServingSpec& spec, const DecoderSearchSpec& search, const KvBudget& budget,
                DecoderGeneration& generation, const std::optional<DecoderCalibration>& cal, ServingSearch& out) {
  for (double x : search.sweep) {
    if (spec.progress) spec.progress("sweep: " + describe_point(search.axis, x));
    DecoderServingSpec p = at_point(spec, search, x);
    p.progress = nullptr;
    ServingResult r = serve_point(p, budget, generation, cal);
    const bool stop = !r.fault.empty() || r.interrupted;
    out.runs.push_back(std::move(r));
    if (stop) {
      out.stopped = "sweep stopped at " + describe_point(search.axis, x) + ": " +
                    (out.runs.back().interrupted ? std::string("interrupted") : out.runs.back().fault);
      break;
    }
  }
  std::vector<stats::ParetoPoint> points;
  for (const ServingResult& r : out.runs)
    points.push_back({r.summary.output_tokens_per_s, r.summary.tokens_per_s_per_user.mean});
  const std::vector<size_t> front = stats::pareto_front(points);
  for (size_t i : front) out.pareto.push_back(static_cast<int64_t>(i));
  if (const std::optional<size_t> knee = stats::pareto_knee(points, front)) out.knee = static_cast<int64_t>(*knee);
}

}  // namespace

int64_t largest_max_batch(const DecoderServingSpec& spec, const DecoderSearchSpec* search) {
  int64_t b = spec.batcher.max_batch;
  if (search && search->axis == ServingAxis::max_batch)
    for (double v : search->sweep) b = std::max(b, static_cast<int64_t>(v));
  return b;
}

void check_peak_can_hold(const DecoderServingSpec& spec) {
  if (!spec.slo.any())
    throw UsageError("--find-peak: give the objectives the peak must hold, e.g. --slo ttft=2s,tpot=100ms or a preset");
  const int64_t needed = min_under_limit(0, spec.slo.percentile / 100, kMlperfConfidence);
  const auto requests = static_cast<int64_t>(spec.load.shapes.size());
  if (requests < needed)
    throw UsageError(fmt::format("--find-peak with --requests {}: a p{:g} verdict needs at least {} requests (early "
                                 "stopping, none over a limit): raise --requests or lower --percentile",
                                 requests, spec.slo.percentile, needed));
}

const char* axis_name(ServingAxis a) {
  switch (a) {
    case ServingAxis::qps: return "qps";
    case ServingAxis::users: return "users";
    case ServingAxis::max_batch: return "max-batch";
  }
  return "";
}

ServingSearch search_decoder(const DecoderServingSpec& spec, const DecoderSearchSpec& search, Backend& backend) {
  DecoderGeneration& generation = generation_of(backend);
  const KvBudget budget = resolve_kv_budget(spec);
  std::optional<DecoderCalibration> cal;
  if (spec.predict)
    cal = calibrate_decoder(generation, served_config(spec), calibration_span(spec.load.shapes),
                            largest_max_batch(spec, &search),
                            spec.progress);
  ServingSearch out;
  out.kind = search.sweep.empty() ? "find-peak" : "sweep";
  out.axis = axis_name(search.axis);
  if (search.sweep.empty()) find_peak_live(spec, search, budget, generation, cal, out);
  else sweep_live(spec, search, budget, generation, cal, out);
  return out;
}

}  // namespace rooflens::capacity
