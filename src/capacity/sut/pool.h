#pragma once
// The live system under test: a pool of runner instances (backends/serving.h) behind the dispatcher's rules
// (dispatcher.h), driven by one thread. Messages are written without waiting; replies are read as they arrive
// (ppoll over every instance), and each reply frees a slot that the next queued query takes at once. Queries are
// handed to the instances when the caller waits, not when it issues, so a burst of issued queries (Offline's) leaves
// together: with the plan's calls_per_message > 1 an instance's calls go as one message, answered once (begin_run).
// Faults: an instance that dies fails the queries it held, naming itself; one that holds a message longer than the
// hang timeout is killed and treated the same. Either way fault() is set and the run must stop.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/serving.h"
#include "capacity/loadgen/sut.h"
#include "capacity/sut/dispatcher.h"

namespace rooflens::capacity {

// Physical cores with a CPU in rooflens' affinity mask (backends/common/cpu_budget.h): what instances share.
int64_t usable_cores();

struct PoolSpec {
  ServingSpec serving;                   // what every instance loads (cpus set per instance below)
  int32_t instances = 1;
  std::vector<std::vector<int>> cpus;    // per instance when pinned; empty: unpinned
  BatchingRules rules;
  int64_t hang_timeout_ns = 60'000'000'000;
};

class RunnerPool : public SystemUnderTest {
 public:
  // Starts every instance in turn (load + prepare); throws BackendError naming the instance that would not start.
  RunnerPool(Serving& serving, const PoolSpec& spec, const std::function<void(const std::string&)>& progress = {});
  ~RunnerPool() override;

  void begin_run(const RunPlan& plan) override;  // the plan's calls per message (below)
  void issue(const IssuedQuery& q) override;
  void wait(int64_t until_ns, std::vector<QueryDone>& done) override;
  void cancel(std::vector<QueryDone>& done) override;
  std::string fault() const override { return fault_; }

  int32_t size() const { return static_cast<int32_t>(instances_.size()); }
  ServingInstance& instance(int32_t i) { return *instances_[static_cast<size_t>(i)]; }
  std::string cpus_of(int32_t i) const;  // "0-1", "" when unpinned
  // Calls sent to an instance so far (its first ones are warm-up): where a profile under load starts.
  int64_t calls(int32_t i) const { return calls_[static_cast<size_t>(i)]; }

 private:
  struct SentMessage {
    int32_t instance = 0;
    std::vector<Assignment> calls;     // served one after another
    int64_t sent_ns = 0;
    bool discard = false;              // cancelled: its reply is awaited and dropped
  };

  void pump(int64_t now);
  void send(int32_t instance, std::vector<Assignment> calls);
  static QueryDone held(const SentMessage& r, const Assignment& c, const PendingQuery& q, QueryStatus status,
                        int64_t completed_ns);
  void fail_held(const SentMessage& r, const std::string& why, int64_t now, std::vector<QueryDone>& done) const;
  void poll_instances(int64_t deadline_ns, std::vector<QueryDone>& done);
  void on_reply(const InferReply& r, int64_t now, std::vector<QueryDone>& done);
  void on_death(int32_t i, const std::string& why, std::vector<QueryDone>& done);
  void check_hangs(int64_t now, std::vector<QueryDone>& done);
  int64_t next_deadline(int64_t until_ns) const;

  PoolSpec spec_;
  std::vector<std::unique_ptr<ServingInstance>> instances_;
  std::vector<bool> alive_;
  std::vector<int64_t> calls_;
  Dispatcher dispatcher_;
  std::unordered_map<uint64_t, SentMessage> sent_;  // messages in flight, by tag
  uint64_t next_tag_ = 1;
  std::string fault_;
  std::vector<InferReply> replies_;
};

}  // namespace rooflens::capacity
