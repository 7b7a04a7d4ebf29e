#pragma once
// Model-level facts for the report (path, producer, opsets, inputs/outputs, weights) and the analysis entry
// point for an already-loaded model. The model's memory section is the memory room's prediction from both
// (memory/model_memory.h predict_model_memory).
#include "analysis/cost.h"
#include "core/report_model.h"
#include "model/graph.h"

namespace rooflens {

ModelInfo summarize_model(const Model& model);
Analysis analyze_model(const Model& model, const CostRegistry& registry);

}  // namespace rooflens
