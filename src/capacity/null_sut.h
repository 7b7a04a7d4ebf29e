#pragma once
// The null system under test (LoadGen's own test fixture): it answers every query the moment it is issued, so a
// run against it measures the issuing engine alone — its throughput and the issue lag it adds.
#include <time.h>

#include <vector>

#include "capacity/sut.h"

namespace rooflens::capacity {

class NullSystem : public SystemUnderTest {
 public:
  void issue(const IssuedQuery& q) override {
    QueryDone d;
    d.id = q.id;
    d.instance = 0;
    d.batch = q.samples;
    d.sent_ns = d.start_ns = d.end_ns = q.issued_ns;
    pending_.push_back(d);
  }
  void wait(int64_t until_ns, std::vector<QueryDone>& done) override {
    if (pending_.empty()) {
      timespec t{static_cast<time_t>(until_ns / 1'000'000'000), static_cast<long>(until_ns % 1'000'000'000)};
      ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nullptr);
      return;
    }
    const int64_t now = now_ns();
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

 private:
  std::vector<QueryDone> pending_;
};

}  // namespace rooflens::capacity
