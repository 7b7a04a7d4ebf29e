#pragma once
// The null system under test (LoadGen's own test fixture): it answers every query the moment it is issued, so a
// run against it measures the issuing engine alone — its throughput and the issue lag it adds. Given a virtual
// clock it waits by advancing it instead of sleeping: the same schedule then runs in no time (the engine test holds
// the two runs against each other).
#include <time.h>

#include <vector>

#include "capacity/loadgen/sut.h"

namespace rooflens::capacity {

class NullSystem : public SystemUnderTest {
 public:
  NullSystem() = default;
  explicit NullSystem(VirtualClock& virtual_time) : virtual_time_(&virtual_time) {}

  void issue(const IssuedQuery& q) override {
    QueryDone d;
    d.id = q.id;
    d.instance = 0;
    d.batch = q.samples;
    d.sent_ns = d.start_ns = d.end_ns = q.issued_ns;
    pending_.push_back(d);
  }
  void wait(int64_t until_ns, std::vector<QueryDone>& done) override {
    if (pending_.empty() && virtual_time_) {
      virtual_time_->advance_to(until_ns);
      return;
    }
    if (pending_.empty()) {
      timespec t{static_cast<time_t>(until_ns / 1'000'000'000), static_cast<long>(until_ns % 1'000'000'000)};
      ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nullptr);
      return;
    }
    const int64_t now = clock().now_ns();
    for (auto& d : pending_) d.completed_ns = now;
    done.insert(done.end(), pending_.begin(), pending_.end());
    pending_.clear();
  }
  void cancel(std::vector<QueryDone>& done) override {
    for (auto& d : pending_) d.status = QueryStatus::abandoned;
    done.insert(done.end(), pending_.begin(), pending_.end());
    pending_.clear();
  }
  std::string fault() const override { return ""; }
  const Clock& clock() const override { return virtual_time_ ? *virtual_time_ : SystemUnderTest::clock(); }

 private:
  VirtualClock* virtual_time_ = nullptr;
  std::vector<QueryDone> pending_;
};

}  // namespace rooflens::capacity
