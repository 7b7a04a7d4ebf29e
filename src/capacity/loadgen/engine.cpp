#include "capacity/loadgen/engine.h"

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>

#include "capacity/loadgen/schedule.h"

namespace rooflens::capacity {

int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

namespace {

constexpr int64_t kPollNs = 50'000'000;       // the longest wait between looks at Ctrl-C and faults
constexpr int64_t kProgressNs = 200'000'000;

// The state of one run: what was issued, what came back, what the sink has seen.
class Run {
 public:
  Run(const RunPlan& plan, SystemUnderTest& sut, const EngineHooks& hooks)
      : plan_(plan), sut_(sut), clock_(sut.clock()), hooks_(hooks) {
    sut_.begin_run(plan_);
    rec_.start_ns = now_ns();
    if (hooks_.sink) hooks_.sink->begin_run(plan_, rec_.start_ns);
  }

  // kNow: scheduled when issued (the streams: the next query when the previous one completed).
  static constexpr int64_t kNow = -1;
  void issue(int64_t scheduled_ns) {
    IssuedQuery q;
    q.id = static_cast<int64_t>(rec_.queries.size());
    q.samples = static_cast<int32_t>(plan_.samples_per_query);
    q.first_sample = (q.id * plan_.samples_per_query) % std::max<int64_t>(1, plan_.sample_count);
    q.issued_ns = now_ns();
    q.scheduled_ns = scheduled_ns == kNow ? q.issued_ns : scheduled_ns;
    QueryRecord r;
    r.issued = q;
    r.done.id = q.id;
    r.done.status = QueryStatus::abandoned;
    rec_.queries.push_back(r);
    ++outstanding_;
    sut_.issue(q);
  }

  void collect(int64_t until_ns) {
    done_.clear();
    sut_.wait(std::min(until_ns, now_ns() + kPollNs), done_);
    for (auto& d : done_) record(d);
    if (!done_.empty() && hooks_.sink) hooks_.sink->flush();
    const int64_t now = now_ns();
    if (hooks_.progress && now - last_progress_ >= kProgressNs) {
      last_progress_ = now;
      hooks_.progress(static_cast<double>(now - rec_.start_ns) / 1e9, completed_);
    }
  }

  bool must_stop() {
    if (hooks_.interrupted && hooks_.interrupted->load()) rec_.interrupted = true;
    rec_.fault = sut_.fault();
    return rec_.interrupted || !rec_.fault.empty();
  }

  bool minimums_met(int64_t at_ns) const {
    const auto issued = static_cast<int64_t>(rec_.queries.size());
    if (plan_.max_queries > 0 && issued >= plan_.max_queries) return true;
    return issued >= plan_.min_queries && at_ns - rec_.start_ns >= static_cast<int64_t>(plan_.min_duration_s * 1e9);
  }

  int64_t now_ns() const { return clock_.now_ns(); }
  int64_t outstanding() const { return outstanding_; }
  int64_t start_ns() const { return rec_.start_ns; }

  RunRecords finish() {
    if (outstanding_ > 0) {  // given up on: abandoned, each still counted with what it waited
      done_.clear();
      sut_.cancel(done_);
      for (auto& d : done_) record(d);
    }
    rec_.end_ns = now_ns();
    if (hooks_.sink) hooks_.sink->flush();
    return std::move(rec_);
  }

 private:
  void record(QueryDone& d) {
    if (d.id < 0 || d.id >= static_cast<int64_t>(rec_.queries.size())) return;
    QueryRecord& r = rec_.queries[static_cast<size_t>(d.id)];
    if (r.done.status != QueryStatus::abandoned || r.done.completed_ns != 0) return;  // answered already
    if (d.completed_ns == 0) d.completed_ns = now_ns();
    r.done = d;
    --outstanding_;
    if (d.status == QueryStatus::ok) ++completed_;
    if (hooks_.sink) hooks_.sink->add(r);
  }

  const RunPlan& plan_;
  SystemUnderTest& sut_;
  const Clock& clock_;
  const EngineHooks& hooks_;
  RunRecords rec_;
  std::vector<QueryDone> done_;
  int64_t outstanding_ = 0, completed_ = 0, last_progress_ = 0;
};

// The next query of a stream when its previous one completed.
void run_stream(Run& run, int64_t streams) {
  bool issuing = true;
  for (;;) {
    while (issuing && run.outstanding() < streams) {
      run.issue(Run::kNow);
      if (run.minimums_met(run.now_ns())) issuing = false;
    }
    if ((!issuing && run.outstanding() == 0) || run.must_stop()) return;
    run.collect(run.now_ns() + kPollNs);
    if (issuing && run.minimums_met(run.now_ns())) issuing = false;
  }
}

void run_server(Run& run, const RunPlan& plan) {
  PoissonSchedule schedule(plan.qps, schedule_seed(plan.seed, plan.qps));
  int64_t next = run.start_ns() + schedule.next_ns();
  bool issuing = true;
  int64_t drain_until = 0;
  for (;;) {
    for (int64_t now = run.now_ns(); issuing && next <= now; next = run.start_ns() + schedule.next_ns()) {
      run.issue(next);
      if (run.minimums_met(next)) {
        issuing = false;
        drain_until = std::max(now, next) + static_cast<int64_t>(plan.drain_s * 1e9);
      }
    }
    if ((!issuing && run.outstanding() == 0) || run.must_stop()) return;
    if (!issuing && run.now_ns() >= drain_until) return;
    run.collect(issuing ? next : drain_until);
  }
}

void run_offline(Run& run, const RunPlan& plan) {
  bool issuing = true;
  for (;;) {
    while (issuing && run.outstanding() < plan.offline_window) {
      run.issue(run.start_ns());
      if (run.minimums_met(run.now_ns())) issuing = false;
    }
    if ((!issuing && run.outstanding() == 0) || run.must_stop()) return;
    run.collect(run.now_ns() + kPollNs);
    if (issuing && run.minimums_met(run.now_ns())) issuing = false;
  }
}

}  // namespace

RunRecords run_scenario(const RunPlan& plan, SystemUnderTest& sut, const EngineHooks& hooks) {
  // The kernel may wake a sleeping thread up to its timer slack late (50 µs by default): the issuer asks for 1 µs,
  // so a query is issued when the schedule says, not when the kernel finds it convenient.
  const int slack = ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  ::prctl(PR_SET_TIMERSLACK, 1000, 0, 0, 0);
  Run run(plan, sut, hooks);
  switch (plan.scenario) {
    case Scenario::single_stream:
    case Scenario::multi_stream: run_stream(run, std::max<int64_t>(1, plan.streams)); break;
    case Scenario::server: run_server(run, plan); break;
    case Scenario::offline: run_offline(run, plan); break;
  }
  RunRecords out = run.finish();
  if (slack > 0) ::prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(slack), 0, 0, 0);
  return out;
}

}  // namespace rooflens::capacity
