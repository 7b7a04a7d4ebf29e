#pragma once
// A step executor with known step times on virtual time: the scheduler's tests (exact TTFT, TPOT and goodput), and
// the simulation a prediction runs once its step-time model is calibrated (step_model.h). A step takes
//     base + per prefill call × prefill rows + per prefill token × prompt tokens fed
//          + (decode rows? per decode call) + per decode row × rows decoded + per context token × padded context
//          + (the decode batch's membership changed? per rebuilt token × the decode rows' contexts summed)
// (a served decoder runs each prompt or chunk as a call of its own and the decode rows as one batched call over a
// cache padded to its longest row — rows × that row's context is what the call attends over — and rebuilds that
// padded cache, copying every row's context, when a sequence joined or left) and the clock moves by exactly that.
#include <cstdint>

#include "capacity/generative/batcher.h"

namespace rooflens::capacity::generative {

struct StepCost {
  double base_ms = 0;
  double per_prefill_token_ms = 0;
  double per_decode_row_ms = 0;
  double per_context_token_ms = 0;  // over the decode rows' padded context (the KV cache a step reads)
  double per_prefill_call_ms = 0;   // each prefill row (a call of its own)
  double per_decode_call_ms = 0;    // the decode rows' one call, when there are any
  double per_rebuilt_token_ms = 0;  // each context token copied when the decode batch's membership changed
  double time_ms(const DecoderStep& plan) const;
};

// What a step's decode call attends over and copies, as the cost counts them.
struct DecodeShape {
  int64_t rows = 0;
  int64_t padded_context = 0;  // rows × the longest row's context
  int64_t rebuilt_context = 0; // the rows' contexts summed, when the membership changed; else 0
};
DecodeShape decode_shape(const DecoderStep& plan);

class NullExecutor final : public StepExecutor {
 public:
  explicit NullExecutor(StepCost cost, int64_t fail_at_step = -1) : cost_(cost), fail_at_(fail_at_step) {}
  StepResult run(const DecoderStep& plan) override;
  void idle_until(int64_t ns) override { clock_.advance_to(ns); }
  const Clock& clock() const override { return clock_; }

 private:
  StepCost cost_;
  int64_t fail_at_;
  VirtualClock clock_;
};

}  // namespace rooflens::capacity::generative
