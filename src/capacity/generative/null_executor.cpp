#include "capacity/generative/null_executor.h"

#include <algorithm>
#include <cmath>

namespace rooflens::capacity::generative {

DecodeShape decode_shape(const DecoderStep& plan) {
  DecodeShape d;
  int64_t longest = 0, summed = 0;
  for (const auto& r : plan.rows)
    if (!r.prefill) {
      ++d.rows;
      longest = std::max(longest, r.context);
      summed += r.context;
    }
  d.padded_context = d.rows * longest;
  const bool changed = !plan.joined.empty() || !plan.left.empty();
  d.rebuilt_context = changed ? summed : 0;
  return d;
}

double StepCost::time_ms(const DecoderStep& plan) const {
  const DecodeShape d = decode_shape(plan);
  const auto prefill_calls = static_cast<double>(static_cast<int64_t>(plan.rows.size()) - d.rows);
  return base_ms + per_prefill_call_ms * prefill_calls +
         per_prefill_token_ms * static_cast<double>(plan.prefill_tokens()) + (d.rows ? per_decode_call_ms : 0) +
         per_decode_row_ms * static_cast<double>(d.rows) +
         per_context_token_ms * static_cast<double>(d.padded_context) +
         per_rebuilt_token_ms * static_cast<double>(d.rebuilt_context);
}

StepResult NullExecutor::run(const DecoderStep& plan) {
  StepResult r;
  r.start_ns = clock_.now_ns();
  if (plan.index == fail_at_) {
    r.end_ns = r.start_ns;
    r.error = "the null executor was told to fail step " + std::to_string(plan.index);
    return r;
  }
  r.end_ns = r.start_ns + static_cast<int64_t>(std::llround(cost_.time_ms(plan) * 1e6));
  clock_.advance_to(r.end_ns);
  return r;
}

}  // namespace rooflens::capacity::generative
