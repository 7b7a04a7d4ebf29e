#pragma once
// Several serving instances of a decoder, each its own batcher over its own runtime process, behind a round-robin
// front as a load balancer puts in front of N replicas: the i-th request goes to instance i mod N at the time it
// arrives (server, offline, trace: the load's own arrivals, so the machine sees the same stream as one instance
// would); a concurrency load splits its users, each user's requests staying on one instance. Knows no runtime: the
// live run (capacity/serve_decoder.h) and the simulation both split and merge here.
#include <cstdint>
#include <mutex>
#include <vector>

#include "capacity/generative/batcher.h"

namespace rooflens::capacity::generative {

struct InstanceShare {
  LoadPlan load;             // this instance's requests, as a load of its own (empty: the instance is not needed)
  std::vector<int64_t> ids;  // their ids in the whole load, in the share's order
};

// Shares for `instances` (>= 1). A concurrency load of fewer users than instances leaves the rest empty.
std::vector<InstanceShare> split_load(const LoadPlan& load, int64_t instances);

// One run's records from each share's (`parts[k]` served `shares[k]`): ids back to the whole load's, times kept
// (every instance's clock is the same clock), counts summed, the first fault named with its instance.
ServingRecords merge_records(std::vector<ServingRecords> parts, const std::vector<InstanceShare>& shares);

// One instance's way into the run's sink: its records under their ids in the whole load, one at a time.
class InstanceSink final : public RequestSink {
 public:
  InstanceSink(RequestSink& inner, std::mutex& lock, const InstanceShare& share, bool begins)
      : inner_(inner), lock_(lock), share_(share), begins_(begins) {}
  void begin(int64_t start_ns) override;
  void add(const RequestRecord& r) override;

 private:
  RequestSink& inner_;
  std::mutex& lock_;
  const InstanceShare& share_;
  bool begins_;  // the first instance sets the file's zero
};

}  // namespace rooflens::capacity::generative
