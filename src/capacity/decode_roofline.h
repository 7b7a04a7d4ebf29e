#pragma once
// A decoder's decode steps on the roofline, per batch size (docs/capacity.md, "Explained on the roofline"): each
// step's FLOPs and bytes from the analysis at its shapes (the weights, once per step whatever its rows, plus each
// row's KV cache and activations), held against this machine's roofs at the run's thread count with the same
// placement as a profiled layer (analysis/roofline.h). The floor says how fast a step of that shape could be; the
// calibrated time, how fast it is; batch / floor, the decode tokens/s the roofs allow — growing with the batch while
// the weights' read dominates, until the step turns compute-bound or its KV cache outweighs the weights.
//
// A decode step's counts are linear in its rows (weights read once, everything else per row), so the analysis runs
// at one and two rows and the other batch sizes follow from those two.
#include <optional>
#include <string>

#include "capacity/generative/null_executor.h"
#include "capacity/search_decoder.h"
#include "core/report_hardware.h"
#include "core/report_serving.h"
#include "generate/decoder_io.h"

namespace rooflens::capacity {

struct DecodeRooflineSpec {
  std::string model;
  DecoderIo io;
  int64_t context = 0;    // tokens per row
  int64_t max_batch = 1;  // rows shown up to (powers of two, and this)
  int64_t threads = 1;
  std::optional<generative::StepCost> calibration;  // the calibrated step times, shown beside the floors
};

// What a served run is drawn at: its requests' mean context per row (the prompt and half the output), the command's
// largest max batch, the threads the runtime used and the calibrated step times the run's prediction ran on.
DecodeRooflineSpec decode_roofline_spec(const DecoderServingSpec& spec, const DecoderSearchSpec* search,
                                        const ServingResult& run);

ServingRoofline decode_roofline(const DecodeRooflineSpec& spec, const HardwareInfo& roofs);

}  // namespace rooflens::capacity
