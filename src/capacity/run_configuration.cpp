#include "capacity/run_configuration.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "backends/common/cpu_budget.h"
#include "backends/serving.h"
#include "capacity/loadgen/find_peak.h"
#include "capacity/loadgen/verdict.h"
#include "capacity/model/explain.h"
#include "capacity/model/predict.h"
#include "capacity/sut/pool.h"
#include "capacity/sut/under_load.h"
#include "stats/order.h"

namespace rooflens::capacity {
namespace {

constexpr double kBaselineSeconds = 2;       // the single-stream baseline the prediction reads
constexpr int64_t kBaselineQueries = 50;
constexpr double kTimelineSeconds = 2;
constexpr double kProfileSeconds = 5;        // --profile-layers' server run
constexpr double kProgressSeconds = 5;       // a progress line while a run goes on
constexpr int64_t kMaxCallsPerMessage = 64;  // an Offline message's calls (a trivial model's are µs each)
// Where a peak search without --qps starts: this share of the Offline throughput measured first. The Server peak lies
// at or below it (a queue that does not drain fails any SLO); 0.8 is VALID at a loose SLO, so the search goes up once
// and bisects, and at a tight one the widening steps (÷1.25, ÷1.56, ÷2.44, ...) reach the peak in a few runs.
constexpr double kPeakSeedShare = 0.8;

// Everything one configuration's runs share.
class ConfigRun {
 public:
  ConfigRun(const CapacityConfig& c, const CapacityContext& ctx) : c_(c), ctx_(ctx), s_(*ctx.settings) {
    out_.run.config = c;
    spq_ = samples_per_query(s_, c);
    judging_ = {s_.slo_ms, s_.percentile, s_.confidence, c.instances, 0.10};
    hooks_.sink = ctx.sink;
    hooks_.interrupted = ctx.interrupted;
    // A long run (MLPerf's 600 s) says how far it got every few seconds.
    if (ctx.progress)
      hooks_.progress = [this](double elapsed_s, int64_t completed) {
        if (elapsed_s - last_progress_s_ < kProgressSeconds) return;
        last_progress_s_ = elapsed_s;
        progress(fmt::format("{} · {:.0f} s, {} queries answered", current_, elapsed_s, completed));
      };
  }

  ConfigOutcome go() {
    if (ctx_.on_config) ctx_.on_config(c_.label());
    if (!start_pool()) return std::move(out_);
    warm_up();
    if (want_prediction()) {
      baseline();
      if (!out_.stop && !baselines_.empty()) make_prediction();  // before the scenario: nothing it measures goes in
    }
    if (!out_.stop) scenarios();
    finish_prediction();
    explain_capacity();
    if (!out_.stop && s_.profile_layers) layers_under_load();
    return std::move(out_);
  }

 private:
  PoolSpec pool_spec() const {
    const ServedModel& w = *ctx_.served;
    PoolSpec p;
    p.serving.model = w.model;
    p.serving.feed = w.feed;
    p.serving.batch_inputs = w.batch_inputs;
    p.serving.batch_dim = w.batch_dim;
    p.serving.call_batch = c_.max_batch > 1 || want_prediction_batches() ? 0 : spq_;
    p.serving.samples = s_.sample_count;
    p.serving.threads = c_.threads;
    p.serving.work_dir = ctx_.work_dir;
    p.instances = static_cast<int32_t>(c_.instances);
    if (c_.pin) p.cpus = disjoint_cpu_sets(c_.instances, c_.threads);
    p.rules = {c_.concurrency, c_.max_batch, static_cast<int64_t>(c_.batch_timeout_ms * 1e6)};
    p.hang_timeout_ns = static_cast<int64_t>(s_.timeout_s * 1e9);
    return p;
  }

  // With dynamic batching the baseline also times calls of max_batch samples (the batch must stay free).
  bool want_prediction_batches() const { return want_prediction() && c_.max_batch > 1; }
  bool want_prediction() const {
    return s_.predict && (s_.search || s_.scenario == Scenario::server || s_.scenario == Scenario::offline);
  }

  bool start_pool() {
    PoolSpec spec = pool_spec();
    if (c_.pin && spec.cpus.empty()) {
      out_.run.failure = fmt::format("--pin: {} instances × {} threads need that many whole cores", c_.instances, c_.threads);
      return false;
    }
    try {
      pool_ = std::make_unique<RunnerPool>(*ctx_.backend->serving(), spec, ctx_.progress);
    } catch (const BackendError& e) {
      out_.run.failure = e.what();
      return false;
    }
    return true;
  }

  RunPlan plan(Scenario scenario) const { return plan_for(s_, scenario, c_, offline_calls_); }

  void warm_up() {
    RunPlan w = plan(Scenario::offline);
    w.min_queries = 3 * c_.instances * c_.concurrency;
    w.min_duration_s = 0;
    w.max_queries = 0;
    progress("warm-up");
    offline_calls_ = calls_per_offline_message(run_scenario(w, *pool_, {}));
  }

  // Offline keeps every instance's queue full, so its replies may come a few calls at a time: each reply costs this
  // process a wake-up and each message the runner a round trip, which a closed loop does not pay (a few % of a 2 ms
  // call on 2 cores). About offline_message_ms of service per message keeps the instances' ends within that of each
  // other at the end of the run.
  int64_t calls_per_offline_message(const RunRecords& warm) const {
    std::vector<double> service;
    for (const auto& q : warm.queries)
      if (q.done.status == QueryStatus::ok) service.push_back(static_cast<double>(q.done.end_ns - q.done.start_ns) / 1e6);
    if (s_.offline_message_ms <= 0 || service.empty()) return 1;
    const double median = std::max(stats::upper_median(std::move(service)), 1e-3);
    return std::clamp(static_cast<int64_t>(s_.offline_message_ms / median), int64_t{1}, kMaxCallsPerMessage);
  }

  bool check_stop(const RunRecords& r) {
    if (!r.fault.empty() || r.interrupted) out_.stop = true;
    return out_.stop;
  }

  void baseline() {
    std::vector<int64_t> batches{spq_};
    if (c_.max_batch > 1 && c_.max_batch != spq_) batches.push_back(c_.max_batch);
    for (int64_t b : batches) {
      // One stream per instance, all at once: the service times then carry what instances do to each other
      // (shared caches, memory bandwidth), which a lone stream would not show.
      RunPlan p = plan(Scenario::single_stream);
      p.samples_per_query = b;
      p.streams = c_.instances;
      p.min_duration_s = std::min(kBaselineSeconds, s_.min_duration_s);
      p.min_queries = kBaselineQueries * c_.instances;
      p.max_queries = 0;
      progress(fmt::format("single-stream baseline at batch {} ({} stream(s), one per instance)", b, c_.instances));
      baselines_.push_back(run_scenario(p, *pool_, hooks_));
      if (check_stop(baselines_.back())) return;
    }
  }

  ScenarioResult run_point(const RunPlan& p) {
    current_ = p.scenario == Scenario::server ? fmt::format("server at {:.4g} QPS", p.qps) : to_string(p.scenario);
    last_progress_s_ = 0;
    progress(current_);
    last_ = run_scenario(p, *pool_, hooks_);
    ScenarioResult r = judge(p, last_, judging_);
    for (auto& u : r.instances) {
      u.pid = pool_->instance(static_cast<int32_t>(u.index)).pid();
      u.cpus = pool_->cpus_of(static_cast<int32_t>(u.index));
    }
    check_stop(last_);
    return r;
  }

  void scenarios() {
    const bool server = s_.search ? s_.slo_ms > 0 : s_.scenario == Scenario::server;
    if (s_.search || s_.scenario != Scenario::server) {
      const Scenario sc = s_.search ? Scenario::offline : s_.scenario;
      out_.run.points.push_back(run_point(plan(sc)));
      if (sc == Scenario::offline) offline_qps_ = out_.run.points.back().completed_qps;
    } else if (s_.find_peak && s_.qps <= 0) {
      seed_offline();
    }
    if (!server || out_.stop) return;
    if (!s_.find_peak && !s_.search) {
      RunPlan p = plan(Scenario::server);
      p.qps = s_.qps;
      out_.run.points.push_back(run_point(p));
      return;
    }
    peak_search();
  }

  // A peak search without --qps starts from the Offline throughput of the same configuration, measured first (and
  // kept as a point of the result), never from the prediction: started at the predicted rate, its first verdict
  // would pin one end of the bracket there, and the prediction's error would be the bisection's last gap around it.
  void seed_offline() {
    out_.run.points.push_back(run_point(plan(Scenario::offline)));
    offline_qps_ = out_.run.points.back().completed_qps;
  }

  void peak_search() {
    PeakOptions o;
    o.precision = s_.peak_precision;
    // No rate whose minimum query count takes longer than MLPerf's 600 s run.
    o.floor_qps = std::max(o.floor_qps, static_cast<double>(s_.min_queries) / kMlperfDurationS);
    o.start_qps = s_.qps > 0 ? s_.qps : kPeakSeedShare * offline_qps_;  // the user's guess, else seed_offline()'s
    if (ctx_.deadline) o.out_of_time = [d = *ctx_.deadline] { return std::chrono::steady_clock::now() >= d; };
    o.hopeless = [&](const ScenarioResult& r) { return lower_rates_cannot_help(r, last_, s_.slo_ms, s_.percentile); };
    PeakOutcome found = find_peak(
        o,
        [&](double qps) {
          RunPlan p = plan(Scenario::server);
          p.qps = qps;
          return lengthened_if_short(p, run_point(p));
        },
        [&](const ScenarioResult&) { return out_.stop; });
    if (!found.hopeless.empty()) out_.run.warnings.push_back(found.hopeless);
    if (found.below_floor_qps > 0)  // the downward bracket reached the floor
      out_.run.warnings.push_back(fmt::format(
          "find-peak stopped at {:g} QPS with no VALID rate: its next step down, {:.3g} QPS, would take {:.0f} s for "
          "a run's minimum of {} queries, longer than MLPerf's {:g} s; give a lower --qps and --min-queries to search "
          "further", found.points.back().target_qps, found.below_floor_qps,
          static_cast<double>(s_.min_queries) / found.below_floor_qps, s_.min_queries, kMlperfDurationS));
    if (found.out_of_time)
      out_.run.warnings.push_back(fmt::format(
          "find-peak cut by --budget after {} run(s): {}, not a converged peak (a larger --budget, or fewer "
          "configurations, lets it converge)", found.points.size(),
          found.peak.qps > 0 ? fmt::format("{:g} QPS is the highest VALID rate found", found.peak.qps)
                             : std::string("no VALID rate found yet")));
    for (auto& p : found.points) out_.run.points.push_back(std::move(p));
    out_.run.peak = found.peak;
  }

  // A run INVALID for its length alone is run again, longer (find_peak.h); the longer run is the point's verdict
  // and says so.
  ScenarioResult lengthened_if_short(RunPlan p, ScenarioResult r) {
    const int64_t needed = lengthened_min_queries(r, p.qps, p.max_queries);
    if (needed <= 0 || out_.stop) return r;
    const int64_t first = r.queries;
    p.min_queries = needed;
    ScenarioResult longer = run_point(p);
    longer.warnings.push_back(fmt::format(
        "lengthened: a first run of {} queries at {:g} QPS was INVALID for its length alone (early stopping asked for "
        "{}); this run's minimum was raised to {}", first, p.qps, needed, needed));
    return longer;
  }

  void finish_prediction() {
    if (!want_prediction() || baselines_.empty()) return;
    if (!prediction_) make_prediction();
    if (prediction_ && out_.run.peak && out_.run.peak->qps > 0) {
      prediction_->measured_peak_qps = out_.run.peak->qps;
      if (prediction_->peak_qps > 0) prediction_->error = prediction_->peak_qps / out_.run.peak->qps - 1;
    }
    out_.run.prediction = prediction_;
  }

  void make_prediction() {
    PredictionPlan pp;
    pp.server = plan(Scenario::server);
    pp.offline = plan(Scenario::offline);
    pp.instances = static_cast<int32_t>(c_.instances);
    pp.rules = pool_spec().rules;
    pp.judging = judging_;
    pp.precision = s_.peak_precision;
    pp.server_peak = s_.slo_ms > 0;
    prediction_ = predict(service_model(baselines_), pp);
  }

  void explain_capacity() {
    // The capacity asked about: --search's best of Offline and the Server peak; the peak of a peak search (its
    // Offline seed is not what was asked); else the scenario's run.
    double samples_per_s = 0;
    if (out_.run.peak && out_.run.peak->qps > 0) samples_per_s = out_.run.peak->qps * static_cast<double>(spq_);
    if (s_.search)
      for (const auto& p : out_.run.points)
        if (p.scenario == Scenario::offline && p.valid) samples_per_s = std::max(samples_per_s, p.samples_per_s);
    if (!s_.search && !s_.find_peak && !out_.run.points.empty()) samples_per_s = out_.run.points.back().samples_per_s;
    if (samples_per_s > 0)
      out_.run.explanation = explain(samples_per_s, *ctx_.served, c_, ctx_.cores, ctx_.roofs);
    out_.run.timeline = timeline_of(last_, kTimelineSeconds);
  }

  void layers_under_load() {
    UnderLoad u;
    u.pool = pool_spec();
    u.plan = plan(Scenario::server);
    u.plan.qps = out_.run.peak && out_.run.peak->qps > 0 ? out_.run.peak->qps : s_.qps;
    u.plan.min_duration_s = std::min(kProfileSeconds, s_.min_duration_s);
    u.plan.min_queries = 1;
    u.served = ctx_.served;
    u.roofs = ctx_.roofs;
    u.threads = c_.threads;
    pool_.reset();  // its CPUs go to the profiled pool
    progress(fmt::format("layers under load at {:.4g} QPS", u.plan.qps));
    try {
      out_.layer_runs = profile_under_load(*ctx_.backend, u, hooks_);
    } catch (const BackendError& e) {
      out_.run.warnings.push_back(std::string("--profile-layers failed: ") + e.what());
    }
  }

  void progress(const std::string& what) const {
    if (ctx_.progress) ctx_.progress(c_.label() + " · " + what);
  }

  const CapacityConfig& c_;
  const CapacityContext& ctx_;
  const Resolved& s_;
  int64_t spq_ = 1;
  Judging judging_;
  EngineHooks hooks_;
  ConfigOutcome out_;
  std::unique_ptr<RunnerPool> pool_;
  std::vector<RunRecords> baselines_;
  std::optional<Prediction> prediction_;
  double offline_qps_ = 0;
  int64_t offline_calls_ = 1;   // calls per Offline message, from the warm-up (calls_per_offline_message)
  RunRecords last_;
  std::string current_;            // the run under way, for progress lines
  double last_progress_s_ = 0;
};

}  // namespace

ConfigOutcome run_configuration(const CapacityConfig& config, const CapacityContext& ctx) {
  return ConfigRun(config, ctx).go();
}

std::vector<TimelineEntry> timeline_of(const RunRecords& r, double seconds) {
  std::vector<TimelineEntry> out;
  int64_t end = 0;
  for (const auto& q : r.queries) end = std::max(end, q.done.end_ns);
  const int64_t from = end - static_cast<int64_t>(seconds * 1e9);
  std::set<std::pair<int32_t, int64_t>> seen;
  for (const auto& q : r.queries) {
    const QueryDone& d = q.done;
    if (d.status != QueryStatus::ok || d.end_ns < from || !seen.insert({d.instance, d.start_ns}).second) continue;
    out.push_back({d.instance, static_cast<double>(d.start_ns - r.start_ns) / 1e6,
                   static_cast<double>(d.end_ns - r.start_ns) / 1e6, d.batch});
  }
  std::sort(out.begin(), out.end(), [](const TimelineEntry& a, const TimelineEntry& b) { return a.start_ms < b.start_ms; });
  return out;
}

}  // namespace rooflens::capacity
