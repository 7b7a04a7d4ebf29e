#include "capacity/simulate.h"

#include <algorithm>
#include <cmath>
#include <queue>

#include "capacity/schedule.h"

namespace rooflens::capacity {
namespace {

int64_t ns(double ms) { return static_cast<int64_t>(std::llround(ms * 1e6)); }

double sample_at(const std::vector<double>& v, double u) {
  return v[std::min(v.size() - 1, static_cast<size_t>(u * static_cast<double>(v.size())))];
}

struct Completion {
  int64_t at_ns;
  uint64_t request;
  bool operator>(const Completion& o) const { return at_ns > o.at_ns; }
};

struct SimCall {
  std::vector<PendingQuery> queries;
  int32_t samples = 0;
  int64_t start = 0, end = 0;
};

struct SimRequest {
  int32_t instance = 0;
  int64_t sent = 0;
  std::vector<SimCall> calls;  // run one after another on the instance's runner; one answer for all
};

class Simulation {
 public:
  Simulation(const RunPlan& plan, int32_t instances, const BatchingRules& rules, const ServiceModel& model)
      : plan_(plan), model_(model), dispatcher_(instances, rules), runner_free_(static_cast<size_t>(instances), 0),
        rng_(plan.seed ^ 0x73696d756c617465ULL) {
    dispatcher_.set_calls_per_request(plan.calls_per_request);  // Offline's K calls per request, as the pool sends them
  }

  RunRecords run() {
    if (plan_.scenario == Scenario::server) serve_poisson();
    else serve_closed();
    rec_.end_ns = now_;
    return std::move(rec_);
  }

 private:
  void issue(int64_t at) {
    IssuedQuery q;
    q.id = static_cast<int64_t>(rec_.queries.size());
    q.samples = static_cast<int32_t>(plan_.samples_per_query);
    q.first_sample = q.id * plan_.samples_per_query;
    q.scheduled_ns = q.issued_ns = at;
    QueryRecord r;
    r.issued = q;
    r.done.id = q.id;
    r.done.status = QueryStatus::abandoned;
    rec_.queries.push_back(r);
    dispatcher_.enqueue({q.id, q.first_sample, q.samples, at});
    ++outstanding_;
  }

  // A request reaches its runner `send` after it left, its calls run one after another once the runner is free,
  // and the answer is back `reply` after the last one ended.
  void dispatch() {
    for (OutgoingRequest& out : dispatcher_.requests(now_)) {
      SimRequest r{out.instance, now_, {}};
      int64_t& free = runner_free_[static_cast<size_t>(out.instance)];
      int64_t at = std::max(now_ + ns(model_.send_ms), free);
      for (Assignment& a : out.calls) {
        SimCall c{std::move(a.queries), a.samples, at, 0};
        c.end = c.start + ns(model_.draw(c.samples, rng_.uniform()));
        at = c.end;
        r.calls.push_back(std::move(c));
      }
      free = at;
      completions_.push({at + ns(model_.reply_ms), requests_.size()});
      requests_.push_back(std::move(r));
    }
  }

  void complete(const Completion& c) {
    const SimRequest& r = requests_[c.request];
    for (const SimCall& call : r.calls) {
      dispatcher_.finished(r.instance);
      for (const auto& q : call.queries) {
        QueryDone& d = rec_.queries[static_cast<size_t>(q.id)].done;
        d = {q.id, r.instance, call.samples, r.sent, call.start, call.end, c.at_ns, QueryStatus::ok, ""};
        --outstanding_;
      }
    }
  }

  // Advances to the next event before `limit`: a completion or a batch coming due. false when none is left.
  bool step(int64_t limit) {
    int64_t next = limit;
    if (!completions_.empty()) next = std::min(next, completions_.top().at_ns);
    if (auto wake = dispatcher_.next_wake_ns()) next = std::min(next, std::max(*wake, now_));
    if (next >= limit) return false;
    now_ = next;
    while (!completions_.empty() && completions_.top().at_ns <= now_) {
      complete(completions_.top());
      completions_.pop();
    }
    dispatch();
    return true;
  }

  bool minimums_met(int64_t at) const {
    const auto n = static_cast<int64_t>(rec_.queries.size());
    if (plan_.max_queries > 0 && n >= plan_.max_queries) return true;
    return n >= plan_.min_queries && at >= static_cast<int64_t>(plan_.min_duration_s * 1e9);
  }

  void serve_poisson() {
    PoissonSchedule schedule(plan_.qps, schedule_seed(plan_.seed, plan_.qps));
    int64_t next = schedule.next_ns();
    for (;;) {
      while (step(next)) {
      }
      now_ = next;
      issue(next);
      dispatch();
      if (minimums_met(next)) break;
      next = schedule.next_ns();
    }
    const int64_t drain_until = now_ + static_cast<int64_t>(plan_.drain_s * 1e9);
    while (outstanding_ > 0 && step(drain_until)) {
    }
    if (outstanding_ > 0) now_ = drain_until;
  }

  // Single/multi-stream (one query at a time) and offline (a window of queries kept queued).
  void serve_closed() {
    const int64_t window = plan_.scenario == Scenario::offline ? plan_.offline_window : std::max<int64_t>(1, plan_.streams);
    bool issuing = true;
    for (;;) {
      while (issuing && outstanding_ < window) {
        issue(plan_.scenario == Scenario::offline ? 0 : now_);
        if (minimums_met(now_)) issuing = false;
      }
      dispatch();
      if (!step(INT64_MAX)) break;
      if (issuing && minimums_met(now_)) issuing = false;
      if (!issuing && outstanding_ == 0) break;
    }
  }

  const RunPlan& plan_;
  const ServiceModel& model_;
  Dispatcher dispatcher_;
  std::vector<int64_t> runner_free_;
  stats::SplitMix64 rng_;
  RunRecords rec_;
  std::vector<SimRequest> requests_;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  int64_t now_ = 0, outstanding_ = 0;
};

}  // namespace

double ServiceModel::draw(int64_t batch, double u) const {
  if (service_ms.empty()) return 0;
  auto hi = service_ms.lower_bound(batch);
  if (hi == service_ms.end()) {  // beyond the largest batch measured: per-sample time of the largest
    const auto& last = *service_ms.rbegin();
    return sample_at(last.second, u) * static_cast<double>(batch) / static_cast<double>(last.first);
  }
  if (hi->first == batch || hi == service_ms.begin()) return sample_at(hi->second, u);
  auto lo = std::prev(hi);
  const double w = static_cast<double>(batch - lo->first) / static_cast<double>(hi->first - lo->first);
  return (1 - w) * sample_at(lo->second, u) + w * sample_at(hi->second, u);
}

double ServiceModel::median_ms(int64_t batch) const {
  auto it = service_ms.find(batch);
  if (it == service_ms.end() || it->second.empty()) return 0;
  std::vector<double> v = it->second;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

RunRecords simulate(const RunPlan& plan, int32_t instances, const BatchingRules& rules, const ServiceModel& model) {
  return Simulation(plan, instances, rules, model).run();
}

}  // namespace rooflens::capacity
