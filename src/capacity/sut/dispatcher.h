#pragma once
// Which queued query goes to which instance, when, merged with which others: the rules a serving system applies
// between the arrival of a query and a runtime call, used alike by the live pool (pool.h) and the simulation
// (model/simulate.h), with the time passed in. Rules (docs/capacity.md, "Configurations"):
// - Queries wait in one queue, in arrival order; an instance takes calls while it has fewer than `concurrency` ×
//   `calls_per_message` in flight (the least busy first; among equally busy ones, the next after the last one given
//   a call, so idle instances take turns and none goes cold while another takes every query), so it never idles
//   between queries when C > 1. Up to calls_per_message of an instance's calls travel as one message (messages()),
//   which its runner serves one after another and answers once.
// - Without dynamic batching (max_batch 1) a call is one query.
// - With it (Triton's dynamic batcher): a call merges queued queries in arrival order while their samples fit in
//   max_batch; it leaves at once when the queue holds a full batch, else when the oldest query has waited
//   batch_timeout, else it waits (next_wake_ns says until when). A query is never split.
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace rooflens::capacity {

struct BatchingRules {
  int64_t concurrency = 1;        // messages in flight per instance
  int64_t max_batch = 1;          // samples per runtime call; 1: off
  int64_t batch_timeout_ns = 0;
  int64_t calls_per_message = 1;  // runtime calls a message may carry, served one after another (Offline)
};

struct PendingQuery {
  int64_t id = 0;
  int64_t first_sample = 0;
  int32_t samples = 1;
  int64_t enqueued_ns = 0;
};

struct Assignment {               // one runtime call
  int32_t instance = 0;
  std::vector<PendingQuery> queries;
  int32_t samples = 0;            // Σ of the queries' samples: the runtime call's batch
};

struct OutgoingMessage {          // what one message to an instance carries
  int32_t instance = 0;
  std::vector<Assignment> calls;  // served one after another, answered once
};

class Dispatcher {
 public:
  Dispatcher(int32_t instances, BatchingRules rules);
  void enqueue(const PendingQuery& q);
  // Every call the rules let leave at `now_ns`.
  std::vector<Assignment> assign(int64_t now_ns);
  // The same calls as messages: each instance's in order, up to calls_per_message to a message. The live pool and
  // the simulation both send what this returns, so they group calls alike.
  std::vector<OutgoingMessage> messages(int64_t now_ns);
  void finished(int32_t instance);     // one call of the instance was answered
  void set_calls_per_message(int64_t calls) { rules_.calls_per_message = calls < 1 ? 1 : calls; }
  void disable(int32_t instance);      // it died: it takes nothing more
  // When a waiting batch becomes due (its oldest query's timeout), if one waits for that and an instance is free.
  std::optional<int64_t> next_wake_ns() const;
  std::vector<PendingQuery> drain();   // removes and returns everything queued
  size_t queued() const { return queue_.size(); }
  int64_t in_flight(int32_t instance) const { return in_flight_[static_cast<size_t>(instance)]; }

 private:
  std::optional<int32_t> free_instance() const;
  bool batch_due(int64_t now_ns) const;

  BatchingRules rules_;
  std::deque<PendingQuery> queue_;
  int64_t queued_samples_ = 0;
  std::vector<int64_t> in_flight_;
  std::vector<bool> enabled_;
  size_t next_ = 0;               // where the search for a free instance starts: after the last one used
};

}  // namespace rooflens::capacity
