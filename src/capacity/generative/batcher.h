#pragma once
// The generative scheduler: which sequences run in each step of a decoder, as serving runtimes decide it.
// - continuous (iteration-level) batching, as Orca and vLLM run it: at every step the running sequences advance
//   together; a new request joins at a step boundary and a finished one leaves at once, its slot reused. Its prompt
//   runs either in a prefill step of its own (`separate`: vLLM's V0 order, prefills before decodes) or in chunks beside
//   the decodes under a per-step token budget (`chunked`: Sarathi's and vLLM V1's);
// - static batching: a batch is formed from what waits, run to its longest sequence (finished rows keep being
//   computed, as padding), and only then is the next batch formed.
// The scheduler never knows what runs a step: a runner serving the model (live), or the null executor of the tests and
// the simulation on virtual time (null_executor.h) — one loop for all, on the executor's clock.
//
// Each request reserves its whole KV cache (prompt + output tokens) when admitted; with a budget, a request that does
// not fit waits (first come, first served; counted), and one that could never fit is rejected with the reason.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "capacity/generative/lengths.h"
#include "capacity/loadgen/sut.h"
#include "core/decoder_step.h"

namespace rooflens::capacity::generative {

enum class Batching { continuous, static_batches };
enum class PrefillMode { separate, chunked };

struct BatcherSettings {
  Batching batching = Batching::continuous;
  PrefillMode prefill = PrefillMode::separate;
  int64_t max_batch = 8;             // sequences in flight at once
  int64_t max_batched_tokens = 512;  // tokens one step feeds: chunked, decodes + prompt chunks; separate, the prompts
                                     // of one prefill step (a longer prompt runs alone)
  int64_t kv_budget_tokens = 0;      // KV-cache tokens all sequences in flight may reserve; 0: no budget
  int64_t max_context = 0;           // the model's context (prompt + output); 0: unknown
};

// "" when the settings can run; else what is wrong, naming the flag.
std::string check_settings(const BatcherSettings& s);

struct StepResult {
  int64_t start_ns = 0, end_ns = 0;
  int64_t kv_copy_bytes = 0;  // bytes the executor copied to rebuild its KV cache for this step
  std::string error;          // the step failed: the run stops there
};

class StepExecutor {
 public:
  virtual ~StepExecutor() = default;
  virtual StepResult run(const DecoderStep& step) = 0;
  // Nothing to run before `ns` (the next arrival): a live executor sleeps, a simulated one moves its clock.
  virtual void idle_until(int64_t ns) = 0;
  virtual const Clock& clock() const = 0;
};

enum class LoadKind { server, concurrency, offline, trace };

struct LoadPlan {
  LoadKind kind = LoadKind::server;
  double rate = 0;                  // server: requests per second
  double burstiness = 1;            // server: the gaps' gamma shape (1: Poisson; below 1 burstier), as vLLM's
  int64_t users = 1;                // concurrency: each user sends its next request when its last one finished
  std::vector<RequestShape> shapes; // one per request, in arrival order
  std::vector<int64_t> trace_ns;    // trace: each request's arrival after the start, in order (trace.h sorts)
  uint64_t seed = 0;                // server: the arrivals'
};

// When each request of a server, offline or trace load arrives, in ns after the start (concurrency: empty, the
// arrivals follow completions). Gaps of a server load are gamma(burstiness, 1 / (rate × burstiness)) from SplitMix64.
std::vector<int64_t> arrivals(const LoadPlan& load);

enum class RequestStatus { ok, failed, rejected, abandoned };

struct RequestRecord {
  int64_t id = 0;
  RequestShape shape;
  int64_t scheduled_ns = 0;     // its arrival (latencies count from here)
  int64_t admitted_ns = -1;     // it got a slot (and its KV reservation)
  int64_t first_token_ns = -1;
  int64_t end_ns = -1;          // its last output token
  std::vector<int64_t> token_ns;  // when each output token was ready; [0] = first_token_ns
  bool waited_for_kv = false;   // a slot was free but its KV reservation did not fit: it waited
  RequestStatus status = RequestStatus::abandoned;
  std::string error;            // failed or rejected: why
};

struct ServingRecords {
  std::vector<RequestRecord> requests;  // by id: every request that arrived (a stopped run drops those yet to come)
  int64_t planned = 0;                  // the requests the load held
  int64_t start_ns = 0, end_ns = 0;
  int64_t steps = 0;
  double step_busy_s = 0;       // sum of the steps' durations
  double scheduler_s = 0;       // the scheduler's own time between steps (live runs)
  int64_t kv_copy_bytes = 0;
  int64_t max_batch_seen = 0;   // the most sequences one step carried
  std::string fault;            // a step failed: the run stopped there
  bool interrupted = false;
};

// Where finished requests go as they finish (the --queries file), so a crash loses nothing already measured.
class RequestSink {
 public:
  virtual ~RequestSink() = default;
  virtual void begin(int64_t start_ns) { (void)start_ns; }  // the run's zero, before any request
  virtual void add(const RequestRecord& r) = 0;
};

struct BatcherHooks {
  RequestSink* sink = nullptr;
  const std::atomic<bool>* interrupted = nullptr;
  std::function<void(int64_t finished, int64_t total)> progress;  // after each step that finished a request
};

ServingRecords serve(const LoadPlan& load, const BatcherSettings& settings, StepExecutor& executor,
                     const BatcherHooks& hooks = {});

}  // namespace rooflens::capacity::generative
