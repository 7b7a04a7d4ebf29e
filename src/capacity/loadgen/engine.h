#pragma once
// The issuing engine: one scenario run against a system under test (sut.h), LoadGen's issuing loop in spirit.
// - single-stream / multi-stream: the next query is issued when the previous one completed (scheduled = issued);
//   `streams` > 1 keeps that many such streams going at once;
// - server: queries arrive on a seeded Poisson schedule (schedule.h) and are issued at their scheduled times; a
//   generator that falls behind issues late, and latency still counts from the scheduled time;
// - offline: every query is scheduled at the start; the engine keeps `offline_window` of them queued at the system
//   so it never starves, which is the same to the system as one query holding every sample.
// The run lasts until both the minimum duration and the minimum query count are met (or max_queries, a fault,
// Ctrl-C). A server run then waits `drain_s` for the last answers; what is still unanswered is abandoned.
// Every finished query goes to the sink at once, so a crash or Ctrl-C loses nothing already measured.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "capacity/loadgen/sut.h"
#include "core/capacity.h"

namespace rooflens::capacity {

struct RunPlan {
  Scenario scenario = Scenario::server;
  double qps = 0;                  // server
  int64_t samples_per_query = 1;
  int64_t sample_count = 1;        // samples prepared: query k's first sample is k × samples_per_query modulo this
  double min_duration_s = 10;
  int64_t min_queries = 1;
  int64_t max_queries = 0;         // 0: no cap
  uint64_t seed = 0;               // the schedule's (server: with the QPS, schedule.h)
  double drain_s = 2;              // server: waiting for answers after the last arrival
  int64_t offline_window = 4;
  int64_t calls_per_message = 1;   // offline: an instance's queued calls travel this many to a message (the system
                                   // under test reads it in begin_run: sut/pool.h)
  int64_t streams = 1;             // single/multi-stream: this many streams at once (the prediction's baseline runs one
                                   // per instance, so its service times carry what instances do to each other)
};

struct QueryRecord {
  IssuedQuery issued;
  QueryDone done;                  // status abandoned until an answer comes
};

struct RunRecords {
  std::vector<QueryRecord> queries;  // by id (issue order)
  int64_t start_ns = 0;              // the schedule's zero
  int64_t end_ns = 0;                // the engine stopped waiting
  std::string fault;                 // the system failed: the run stopped there
  bool interrupted = false;
};

// Where finished queries go as they finish (the --queries CSV).
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void begin_run(const RunPlan& plan, int64_t start_ns) = 0;
  virtual void add(const QueryRecord& r) = 0;
  virtual void flush() = 0;        // called after each batch of completions: make what was added durable
};

struct EngineHooks {
  RecordSink* sink = nullptr;
  const std::atomic<bool>* interrupted = nullptr;
  std::function<void(double elapsed_s, int64_t completed)> progress;  // about every 0.2 s
};

RunRecords run_scenario(const RunPlan& plan, SystemUnderTest& sut, const EngineHooks& hooks = {});

}  // namespace rooflens::capacity
