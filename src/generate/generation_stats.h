#pragma once
// The figures of a GenerationRun computed from its raw samples (pure functions, no runtime): statistics of TTFT,
// TPOT and e2e, tokens/s, the TPOT-against-context series with the bytes each decode step streams, and the
// decode headline against the measured DRAM roof.
#include <cstdint>
#include <string>
#include <vector>

#include "core/report_generation.h"
#include "core/report_hardware.h"

namespace rooflens {

struct RequestSamples {          // one measured request, ms
  double ttft_ms = 0;
  std::vector<double> steps_ms;  // one per decode step (run.gen of them)
  std::vector<int64_t> step_page_faults;  // the process's minor page faults in each step (empty when not counted)
  std::optional<int64_t> prefill_page_faults;  // and in the prefill (absent when not counted)
};

// Appends one repetition's requests (their samples, and their count to run.repetitions; their page faults while
// every request so far has them). Throws UserError when a request does not have run.gen steps.
void add_requests(GenerationRun& run, const std::vector<RequestSamples>& requests);

// Recomputes every derived figure from the samples and the byte model (run.weight_bytes, run.kv_bytes_per_token):
// ttft/tpot/e2e statistics, tokens/s (mean ± std over requests), kv_bytes_end, by_context with its fit (from the
// steps without page faults when every context has one: by_context_faulted_steps says how many were left out),
// decode_bytes_per_token, decode_gbps and page_faults_per_step. Needs batch, prompt and gen set.
void refresh_figures(GenerationRun& run);

// TTFT or TPOT with a CV above 5%, one line each. An unstable TPOT whose decode steps took page faults (≥ 16 a step
// on average: 64 KiB of fresh memory, ~0.2 ms on a 2-vCPU guest, the size of a small decoder's whole step) names them
// as the cause, since no quieter machine removes them.
std::vector<std::string> generation_timing_warnings(const GenerationRun& run);

// The DRAM read roof at the thread count nearest `threads` (the best kernel there when "read" was not measured).
struct DramRoof {
  double gbps = 0;
  std::string label;             // "DRAM read x2"; "" when the hardware has no DRAM figure
};
DramRoof dram_roof(const HardwareInfo& hw, int64_t threads);

// Least-squares TPOT against KV bytes over the series (r = 0 with fewer than 3 points or no spread).
ContextFit fit_tpot_vs_kv(const std::vector<ContextPoint>& points);

}  // namespace rooflens
