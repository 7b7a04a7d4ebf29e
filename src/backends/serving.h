#pragma once
// Serving through a backend (`rooflens capacity`): instances — a runtime process each, with one inference session and
// its samples prepared once — that take many messages without waiting for the replies, so one issuer can drive many of
// them. A message names prepared samples (no tensor crosses the pipe on the hot path) and the reply carries the runtime
// call's start and end on the monotonic clock the caller shares (CLOCK_MONOTONIC). The messages `prepare` and `infer`
// are in docs/runner-protocol.md. An optional capability of a backend: Backend::serving().
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace rooflens {

struct SampleRange {
  int64_t first = 0;   // the first prepared sample (indices wrap around the samples prepared)
  int32_t count = 1;
};

struct ServingSpec {
  std::filesystem::path model;
  FeedSpec feed;                          // one sample's inputs (a dynamic batch at 1); sample i is seeded feed.seed + i
  std::vector<std::string> batch_inputs;  // inputs whose dim 0 is the batch: samples of a call are stacked along it
  std::string batch_dim;                  // the symbolic batch dim ("" when the model's batch is fixed)
  int64_t call_batch = 1;                 // samples per runtime call when every call has the same; 0: they vary
                                          // (dynamic batching), so the batch dim stays free
  int64_t samples = 1;                    // samples to prepare
  int64_t threads = 1;                    // intra-op threads, passed explicitly
  std::vector<int> cpus;                  // the instance's CPUs (--pin); empty: wherever rooflens may run
  bool profile = false;                   // the inference session records per-kernel times (--profile-layers)
  std::filesystem::path work_dir;         // private temp dir (profiles)
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};  // start, load and prepare
};

using CallSamples = std::vector<SampleRange>;  // one runtime call: its samples, stacked in order

struct CallSpan {
  int64_t start_ns = 0, end_ns = 0;       // a runtime call (CLOCK_MONOTONIC)
};

struct InferReply {
  uint64_t tag = 0;
  bool ok = true;
  std::vector<CallSpan> calls;            // one per call of the message, in order (when ok)
  std::string error;                      // the runtime's own message when !ok
};

class ServingInstance {
 public:
  virtual ~ServingInstance() = default;
  virtual pid_t pid() const = 0;
  virtual double load_ms() const = 0;
  // What its inference session runs with (as a profile run records).
  virtual std::vector<RunSetting> settings() const = 0;
  // Asks for runtime calls, one after another, without waiting; one reply comes for all of them (a message of
  // several calls saves the pipe round trips between them: Offline's queued queries). false: the process is gone.
  virtual bool send(uint64_t tag, const std::vector<CallSamples>& calls) = 0;
  virtual int reply_fd() const = 0;       // poll it (POLLIN) for answers
  // Reads the answers that arrived, without blocking. false once the process ended: death() says how.
  virtual bool collect(std::vector<InferReply>& out) = 0;
  virtual std::string death() const = 0;
  virtual void kill() = 0;                // SIGKILL now (it stopped answering)
  // ServingSpec::profile: the kernels of the calls it served after its first `skip` calls (a measurement as a
  // profiled run yields, latencies left to the caller). Throws BackendError.
  virtual Measurement profile(int64_t skip) = 0;
};

class Serving {
 public:
  virtual ~Serving() = default;
  // Starts a process, loads the model, prepares the samples. Throws BackendError (stage "load" or "run").
  virtual std::unique_ptr<ServingInstance> start(const ServingSpec& spec) = 0;
  // False when every call must have the batch the instance was loaded with (no dynamic batching).
  virtual bool takes_any_batch() const = 0;
  virtual bool can_profile() const = 0;
  // The intra-op setting an inference session given `threads` records.
  virtual RunSetting threads_setting(int64_t threads) const = 0;
};

}  // namespace rooflens
