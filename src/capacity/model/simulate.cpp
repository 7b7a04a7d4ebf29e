#include "capacity/model/simulate.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <set>

#include "stats/order.h"
#include "stats/splitmix64.h"

namespace rooflens::capacity {
namespace {

int64_t ns(double ms) { return static_cast<int64_t>(std::llround(ms * 1e6)); }

double sample_at(const std::vector<double>& v, double u) {
  return v[std::min(v.size() - 1, static_cast<size_t>(u * static_cast<double>(v.size())))];
}

struct Completion {
  int64_t at_ns;
  uint64_t message;  // index into messages_
  bool operator>(const Completion& o) const { return at_ns > o.at_ns; }
};

struct SimCall {
  std::vector<PendingQuery> queries;
  int32_t samples = 0;
  int64_t start = 0, end = 0;
};

struct SimMessage {
  int32_t instance = 0;
  int64_t sent = 0;
  std::vector<SimCall> calls;  // run one after another on the instance's runner; one reply for all
};

// The configuration as a system under test on virtual time: the engine (engine.h) issues the plan's queries to it
// exactly as it issues them to a pool of runners, and its wait() advances the clock from event to event.
class SimulatedSystem final : public SystemUnderTest {
 public:
  SimulatedSystem(const RunPlan& plan, int32_t instances, const BatchingRules& rules, const ServiceModel& model)
      : model_(model), dispatcher_(instances, rules), runner_free_(static_cast<size_t>(instances), 0),
        rng_(plan.seed ^ 0x73696d756c617465ULL) {}

  // Offline's K calls per message, as the pool sends them.
  void begin_run(const RunPlan& plan) override { dispatcher_.set_calls_per_message(plan.calls_per_message); }

  // Queued only, as the pool queues them: what the engine issues at one instant is sent in the next wait(), so
  // Offline's window fills whole messages.
  void issue(const IssuedQuery& q) override {
    dispatcher_.enqueue({q.id, q.first_sample, q.samples, q.issued_ns});
    open_.insert(q.id);
  }

  // Events before `until_ns`, one after another, until one of them completes queries.
  void wait(int64_t until_ns, std::vector<QueryDone>& done) override {
    dispatch();
    for (;;) {
      int64_t next = until_ns;
      if (!completions_.empty()) next = std::min(next, completions_.top().at_ns);
      if (auto wake = dispatcher_.next_wake_ns()) next = std::min(next, std::max(*wake, now()));
      if (next >= until_ns) {
        clock_.advance_to(until_ns);
        return;
      }
      clock_.advance_to(next);
      const size_t before = done.size();
      while (!completions_.empty() && completions_.top().at_ns <= now()) {
        complete(completions_.top(), done);
        completions_.pop();
      }
      dispatch();
      if (done.size() > before) return;
    }
  }

  // What is still open never completes: abandoned, as a pool's unanswered queries are.
  void cancel(std::vector<QueryDone>& done) override {
    for (int64_t id : open_) {
      QueryDone d;
      d.id = id;
      d.status = QueryStatus::abandoned;
      done.push_back(d);
    }
    open_.clear();
  }

  std::string fault() const override { return ""; }
  const Clock& clock() const override { return clock_; }

 private:
  int64_t now() const { return clock_.now_ns(); }

  // A message reaches its runner `send` after it left, its calls run one after another once the runner is free,
  // and the reply is back `reply` after the last one ended.
  void dispatch() {
    for (OutgoingMessage& out : dispatcher_.messages(now())) {
      SimMessage r{out.instance, now(), {}};
      int64_t& free = runner_free_[static_cast<size_t>(out.instance)];
      int64_t at = std::max(now() + ns(model_.send_ms), free);
      for (Assignment& a : out.calls) {
        SimCall c{std::move(a.queries), a.samples, at, 0};
        c.end = c.start + ns(model_.draw(c.samples, rng_.uniform()));
        at = c.end;
        r.calls.push_back(std::move(c));
      }
      free = at;
      completions_.push({at + ns(model_.reply_ms), messages_.size()});
      messages_.push_back(std::move(r));
    }
  }

  void complete(const Completion& c, std::vector<QueryDone>& done) {
    const SimMessage& r = messages_[c.message];
    for (const SimCall& call : r.calls) {
      dispatcher_.finished(r.instance);
      for (const auto& q : call.queries) {
        done.push_back({q.id, r.instance, call.samples, r.sent, call.start, call.end, c.at_ns, QueryStatus::ok, ""});
        open_.erase(q.id);
      }
    }
  }

  const ServiceModel& model_;
  VirtualClock clock_;
  Dispatcher dispatcher_;
  std::vector<int64_t> runner_free_;
  stats::SplitMix64 rng_;
  std::vector<SimMessage> messages_;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  std::set<int64_t> open_;
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
  return stats::upper_median(it->second);
}

RunRecords simulate(const RunPlan& plan, int32_t instances, const BatchingRules& rules, const ServiceModel& model) {
  SimulatedSystem system(plan, instances, rules, model);
  return run_scenario(plan, system);
}

}  // namespace rooflens::capacity
