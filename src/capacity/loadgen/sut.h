#pragma once
// The system under test, as the issuing engine sees it (LoadGen's SystemUnderTest in spirit): queries are handed
// over without waiting (issue), completions come back later (wait). The engine never knows what runs the model:
// a pool of runner instances (sut/pool.h), the queueing simulation (model/simulate.h) or the null system of the tests.
// Times are ns of the system's clock: the monotonic clock (CLOCK_MONOTONIC, which the runners' own timestamps share)
// for a live system, virtual time for the simulation — the engine reads whichever the system keeps, so one issue loop
// drives both.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace rooflens::capacity {

int64_t now_ns();  // CLOCK_MONOTONIC

struct RunPlan;  // engine.h

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t now_ns() const = 0;
};

class MonotonicClock final : public Clock {
 public:
  int64_t now_ns() const override { return capacity::now_ns(); }
};

// Time that passes only when the system it belongs to says so (in its wait): a simulated run of ten minutes takes
// the milliseconds its events take to compute.
class VirtualClock final : public Clock {
 public:
  int64_t now_ns() const override { return now_; }
  void advance_to(int64_t ns) { now_ = std::max(now_, ns); }

 private:
  int64_t now_ = 0;
};

struct IssuedQuery {
  int64_t id = 0;             // 0, 1, 2, ... in issue order
  int64_t first_sample = 0;   // its samples are first_sample, first_sample + 1, ... (modulo the samples prepared)
  int32_t samples = 1;
  int64_t scheduled_ns = 0;   // when the scenario said it arrives
  int64_t issued_ns = 0;      // when the engine handed it over
};

enum class QueryStatus { ok, failed, abandoned };

struct QueryDone {
  int64_t id = 0;
  int32_t instance = -1;      // which instance served it (-1: none)
  int32_t batch = 0;          // samples in the runtime call that served it (a dynamic batch merges queries)
  int64_t sent_ns = 0;        // its message written to the instance
  int64_t start_ns = 0, end_ns = 0;  // the runtime call, as the instance timed it
  int64_t completed_ns = 0;   // the answer read back
  QueryStatus status = QueryStatus::ok;
  std::string error;          // failed: why, naming the instance
};

class SystemUnderTest {
 public:
  virtual ~SystemUnderTest() = default;
  // A run begins: what of its plan the system serves by (how many calls travel in one message). Every run says it,
  // so nothing of one run's plan outlives it.
  virtual void begin_run(const RunPlan& plan) { (void)plan; }
  virtual void issue(const IssuedQuery& q) = 0;
  // Returns by `until_ns`, earlier once something completed; appends what completed.
  virtual void wait(int64_t until_ns, std::vector<QueryDone>& done) = 0;
  // The run is over: queries not yet answered come back as abandoned (queued ones never reached an instance; the
  // answers of sent ones are awaited and dropped, so the system is idle for the next run).
  virtual void cancel(std::vector<QueryDone>& done) = 0;
  // "" while healthy; else what failed ("instance 1 (pid 4242) was killed by SIGKILL"): the run must stop.
  virtual std::string fault() const = 0;
  // The clock the system's times are on; a system on virtual time advances it in wait().
  virtual const Clock& clock() const { return monotonic_; }

 private:
  MonotonicClock monotonic_;
};

}  // namespace rooflens::capacity
