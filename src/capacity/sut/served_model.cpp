#include "capacity/sut/served_model.h"

#include "analysis/cost.h"
#include "analysis/input_bounds.h"
#include "analysis/model_summary.h"
#include "memory/model_memory.h"
#include "model/declared_io.h"
#include "model/graph.h"
#include "model/loader.h"

namespace rooflens::capacity {

ServedModel load_served_model(const std::string& path, ShapeOverrides overrides,
                              const std::map<std::string, std::string>& input_files, uint64_t seed) {
  ServedModel w;
  w.model = std::filesystem::absolute(path);
  const DeclaredIo io = read_declared_io(path);
  // The batch: the symbol of the first input's leading dim, when it is symbolic and no --shape fixed it.
  for (const auto& in : io.inputs) {
    if (overrides.shapes.count(in.name) || !in.type.has_rank || in.type.dims.empty()) continue;
    const Dim& d0 = in.type.dims[0];
    if (d0.known() || d0.symbol.empty() || overrides.dims.count(d0.symbol)) continue;
    if (w.batch_dim.empty()) w.batch_dim = d0.symbol;
    if (d0.symbol == w.batch_dim) w.batch_inputs.push_back(in.name);
  }
  if (!w.batch_dim.empty()) overrides.batch = 1;  // a sample is one item along the batch
  auto model = std::make_shared<Model>(load_model(path, overrides));
  if (w.batch_dim.empty() && !model->graphs.empty() && !model->graphs[0].inputs.empty()) {
    const TensorInfo* t = model->graphs[0].find(model->graphs[0].inputs[0]);
    w.fixed_batch = t && !t->dims.empty() && t->dims[0].known() ? t->dims[0].value : 1;
  }
  GeneratedInputPlan plan = plan_generated_inputs(*model);
  w.feed.dims = std::move(plan.dims);
  w.feed.shapes = std::move(plan.shapes);
  w.feed.int_input_max = std::move(plan.int_input_max);
  w.feed.values = std::move(plan.values);
  for (const auto& [k, v] : input_files) w.feed.files[k] = v;
  w.feed.seed = seed;
  w.info = summarize_model(*model);
  w.info.analysis = analyze_model(*model, CostRegistry::builtin());
  // The report's model.memory as capacity has always written it: the file's weights, no prediction of the need.
  w.info.memory = ModelMemory{};
  w.info.memory->weights = model_weights(*model);
  w.flops_per_sample = w.info.analysis.totals.flops;
  w.bytes_per_sample = w.info.analysis.totals.bytes_read + w.info.analysis.totals.bytes_written;
  w.loaded = std::move(model);
  return w;
}

}  // namespace rooflens::capacity
