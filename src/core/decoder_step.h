#pragma once
// One step of a served decoder: the rows one batched step carries. The generative scheduler decides them
// (capacity/generative/batcher.h) and a backend's served decoder runs them (backends/generation.h): neither knows
// the other, both speak this.
#include <cstdint>
#include <vector>

namespace rooflens {

struct DecoderStepRow {
  int64_t request = 0;
  int64_t context = 0;             // tokens in its KV cache before this step
  int64_t tokens = 0;              // tokens this step feeds for it: 1 for a decode, a prompt or a chunk of it
  bool prefill = false;
  bool completes_prefill = false;  // its prompt's last tokens: the step's end gives its first output token
  bool padding = false;            // static batching: a finished sequence computed with its batch, giving nothing
};

struct DecoderStep {
  int64_t index = 0;
  std::vector<DecoderStepRow> rows;
  // The decode batch's membership changes since the previous decode step (a padded cache is rebuilt when it
  // changes), and the requests that finished at the previous step (their state can go).
  std::vector<int64_t> joined, left, finished;
  int64_t prefill_tokens() const {
    int64_t n = 0;
    for (const auto& r : rows)
      if (r.prefill) n += r.tokens;
    return n;
  }
  int64_t decode_rows() const {  // padding included
    int64_t n = 0;
    for (const auto& r : rows) n += !r.prefill;
    return n;
  }
};

// How a step went where it ran.
struct DecoderStepTimes {
  int64_t start_ns = 0, end_ns = 0;  // the step in the runtime's process, on CLOCK_MONOTONIC
  int64_t kv_copy_bytes = 0;         // the KV cache copied to rebuild the padded batch for it
};

}  // namespace rooflens
