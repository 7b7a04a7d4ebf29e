#include "capacity/decode_roofline.h"

#include <algorithm>
#include <cmath>

#include "analysis/model_summary.h"
#include "analysis/roofline.h"
#include "memory/kv_cache.h"
#include "core/decoder_step.h"
#include "core/graph_view.h"
#include "model/loader.h"
#include "model/onnx_graph_view.h"

namespace rooflens::capacity {
namespace {

struct StepCounts {
  double flops = 0, bytes = 0, written = 0;
  std::string dtype = "fp32";  // of the node with the most FLOPs: the compute peak the step meets
};

StepCounts analyse_step(const DecodeRooflineSpec& spec, int64_t batch) {
  ShapeOverrides shapes;
  shapes.shapes = step_shapes(spec.io, batch, 1, spec.context);
  const Model model = load_model(spec.model, shapes);
  const Analysis a = analyze_model(model, CostRegistry::builtin());
  StepCounts c;
  c.flops = static_cast<double>(a.totals.flops);
  c.bytes = static_cast<double>(a.totals.bytes_read + a.totals.bytes_written);
  c.written = static_cast<double>(a.totals.bytes_written);
  // What the runtime folds when it creates the inference session runs no step (a tied embedding's Transpose for the
  // LM head: 113 MB read and written on the zoo llama, which a step never moves).
  GraphView top_graph;
  top_graph.graph_inputs = graph_view(model).graph_inputs;
  std::vector<const NodeAnalysis*> in_main;
  for (const NodeAnalysis& n : a.nodes)
    if (n.graph == "main" && n.execution == NodeExecution::Run) {
      top_graph.nodes.push_back({n.name, n.op, n.domain, n.inputs, n.outputs, {}, false});
      in_main.push_back(&n);
    }
  const std::vector<bool> folded = computed_from_constants(top_graph);
  for (size_t i = 0; i < in_main.size(); ++i)
    if (folded[i]) {
      c.flops -= static_cast<double>(in_main[i]->flops);
      c.bytes -= static_cast<double>(in_main[i]->bytes_read + in_main[i]->bytes_written);
      c.written -= static_cast<double>(in_main[i]->bytes_written);
    }
  const NodeAnalysis* top = nullptr;
  for (const NodeAnalysis& n : a.nodes)
    if (!top || n.flops > top->flops) top = &n;
  if (top && !top->input_dtypes.empty() && !roof_dtype(top->input_dtypes[0]).empty())
    c.dtype = roof_dtype(top->input_dtypes[0]);
  return c;
}

// A steady decode step (the same batch as the step before: nothing rebuilt) of `batch` rows at `context` tokens each,
// as the simulation times it.
double calibrated_ms(const generative::StepCost& k, int64_t batch, int64_t context) {
  DecoderStep step;
  for (int64_t r = 0; r < batch; ++r) step.rows.push_back({r, context, 1, false, false, false});
  return k.time_ms(step);
}

}  // namespace

DecodeRooflineSpec decode_roofline_spec(const DecoderServingSpec& spec, const DecoderSearchSpec* search,
                                        const ServingResult& run) {
  DecodeRooflineSpec r;
  r.model = spec.model;
  r.io = spec.io;
  double prompt = 0, output = 0;
  for (const generative::RequestShape& q : spec.load.shapes) {
    prompt += static_cast<double>(q.input_tokens);
    output += static_cast<double>(q.output_tokens);
  }
  const auto n = static_cast<double>(std::max<size_t>(1, spec.load.shapes.size()));
  r.context = std::max<int64_t>(1, std::llround(prompt / n + output / n / 2));
  r.max_batch = largest_max_batch(spec, search);
  r.threads = std::max<int64_t>(1, run.settings.threads);
  if (run.predicted) {
    generative::StepCost k;
    k.per_decode_call_ms = run.predicted->decode_call_ms;
    k.per_decode_row_ms = run.predicted->decode_row_ms;
    k.per_context_token_ms = run.predicted->context_token_ms;
    r.calibration = k;
  }
  return r;
}

ServingRoofline decode_roofline(const DecodeRooflineSpec& spec, const HardwareInfo& roofs) {
  ServingRoofline r;
  r.context = spec.context;
  r.threads = spec.threads;
  r.kv_bytes_per_token = static_cast<double>(kv_bytes_per_token(spec.io));
  const StepCounts one = analyse_step(spec, 1), two = analyse_step(spec, 2);
  // Linear in the rows: the part that does not grow is what every step reads once, the weights.
  const double flops_per_row = two.flops - one.flops, bytes_per_row = two.bytes - one.bytes;
  const double written_per_row = two.written - one.written;
  r.weight_bytes = std::max(0.0, one.bytes - bytes_per_row);
  auto at = [&](int64_t b) {
    DecodeStepOnRoof s;
    s.batch = b;
    const auto rows = static_cast<double>(b - 1);
    s.flops = one.flops + rows * flops_per_row;
    s.bytes = one.bytes + rows * bytes_per_row;
    s.kv_bytes = static_cast<double>(b * spec.context) * r.kv_bytes_per_token;
    const double written = one.written + rows * written_per_row;
    const RoofPlacement p = place_on_roofline(roofs, spec.threads, static_cast<uint64_t>(s.flops),
                                              static_cast<uint64_t>(s.bytes), 1.0, one.dtype,
                                              static_cast<uint64_t>(written));
    s.bound = p.bound;
    s.roof = p.roof;
    if (p.attainable > 0) {
      s.floor_ms = s.flops / (p.attainable * 1e9) * 1e3;
      s.tokens_per_s_ceiling = static_cast<double>(b) / s.floor_ms * 1e3;
    }
    if (spec.calibration) s.calibrated_ms = calibrated_ms(*spec.calibration, b, spec.context);
    return s;
  };
  const int64_t top = std::max<int64_t>(1, spec.max_batch);
  for (int64_t b = 1; b < top; b *= 2) r.steps.push_back(at(b));
  r.steps.push_back(at(top));
  for (int64_t b = 1; b <= 4096; b *= 2)
    if (at(b).bound == "compute") {
      // The first batch size at or below this power of two that is compute-bound.
      int64_t lo = std::max<int64_t>(1, b / 2), hi = b;
      while (lo < hi) {
        const int64_t mid = (lo + hi) / 2;
        if (at(mid).bound == "compute") hi = mid;
        else lo = mid + 1;
      }
      r.compute_bound_from = hi;
      break;
    }
  if (r.kv_bytes_per_token > 0)
    r.kv_outweighs_weights_from =
        static_cast<int64_t>(std::ceil(r.weight_bytes / (static_cast<double>(top) * r.kv_bytes_per_token)));
  return r;
}

}  // namespace rooflens::capacity
