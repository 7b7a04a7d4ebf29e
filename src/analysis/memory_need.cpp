#include "analysis/memory_need.h"

#include "analysis/cost.h"
#include "analysis/model_summary.h"
#include "memory/model_memory.h"
#include "memory/run_memory.h"

namespace rooflens {

uint64_t predicted_need(const Model& m) {
  ModelInfo info = summarize_model(m);
  info.analysis = analyze_model(m, CostRegistry::builtin());
  predict_model_memory(info);
  return info.memory ? info.memory->peak_bytes : used_weight_bytes(info);
}

}  // namespace rooflens
