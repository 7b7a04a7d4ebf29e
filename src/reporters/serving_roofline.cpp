#include "reporters/serving_roofline.h"

#include <fmt/format.h>

namespace rooflens {
namespace {

std::string step_text(const DecodeStepOnRoof& s) {
  std::string t = fmt::format("{} row{}: {}-bound ({}), floor {:.3g} ms", s.batch, s.batch == 1 ? "" : "s", s.bound,
                              s.roof, s.floor_ms);
  if (s.calibrated_ms > 0)
    t += fmt::format(", calibrated {:.3g} ms ({:.0f}% of the roof)", s.calibrated_ms, 100 * s.floor_ms / s.calibrated_ms);
  return t + fmt::format(", at most {:.4g} tokens/s", s.tokens_per_s_ceiling);
}

}  // namespace

std::string serving_roofline_line(const ServingRoofline& r) {
  if (r.steps.empty() || r.steps.front().bound.empty()) return "";
  std::string out = fmt::format("\non the roofline (decode steps at {} tokens of context per row, {} thread(s); "
                                "weights {:.1f} MB read once per step): ",
                                r.context, r.threads, r.weight_bytes / 1e6);
  out += step_text(r.steps.front());
  if (r.steps.size() > 1) out += "; " + step_text(r.steps.back());
  out += r.compute_bound_from > 0 ? fmt::format("; compute-bound from {} rows", r.compute_bound_from)
                                  : std::string("; memory-bound at every batch up to 4096");
  if (r.kv_outweighs_weights_from > 0)
    out += fmt::format("; the KV cache outweighs the weights past {} tokens per row at {} rows",
                       r.kv_outweighs_weights_from, r.steps.back().batch);
  return out + "\n";
}

}  // namespace rooflens
