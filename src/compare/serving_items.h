#pragma once
// `compare` on a decoder's serving reports (`capacity` on a decoder, `import vllm|aiperf`): each run becomes its TTFT,
// TPOT and output ms/token items (core/serving_items.h), significance-tested like any latency where the run kept its
// requests' samples, and compared by their medians where a file gave only a summary.
#include <string>

#include "compare/sources.h"

namespace rooflens {

void add_serving_items(CompareSource& src, const Report& report, const std::string& model);

}  // namespace rooflens
