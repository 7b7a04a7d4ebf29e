#include "generate/phase_layers.h"

#include "analysis/model_summary.h"
#include "assembly/assemble.h"
#include "model/onnx_graph_view.h"

namespace rooflens {

PhaseProfile phase_profile(Phase phase, const Model& step, const std::map<std::string, int64_t>& dims,
                           const PhaseMeasurement& m, const MappingRules& rules, const HardwareInfo* hw,
                           int64_t batch, int64_t threads, std::optional<RunMemory>* memory) {
  const Analysis a = analyze_model(step, CostRegistry::builtin());
  const GraphView view = graph_view(step);
  AssemblyContext ctx;
  ctx.model = &view;
  ctx.analysis = &a;
  ctx.hw = hw;
  ctx.rules = &rules;
  RunKey key;
  key.batch = batch;
  key.dims = dims;
  key.threads = threads;
  ProfileRun run = assemble_run(key, m.step, ctx);
  if (memory) *memory = run.memory;
  PhaseProfile p;
  p.phase = phase;
  p.tokens = m.tokens;
  p.past = m.past;
  p.dims = dims;
  p.latency_ms = run.profiled_latency_ms;
  p.coverage = run.coverage;
  p.flops = run.flops;
  p.macs = run.macs;
  p.layers = std::move(run.layers);
  p.unowned = std::move(run.unowned);
  p.unmapped_kernels = run.unmapped_kernels;
  p.roofs_engine = run.roofs_engine;
  for (auto& w : run.warnings) p.warnings.push_back(to_string(phase) + ": " + w);
  return p;
}

}  // namespace rooflens
