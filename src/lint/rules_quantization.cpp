// Quantization: what kept a quantized (or fp16) model from running in its low precision — Q/DQ pairs the runtime
// did not fuse into integer kernels, and islands of float layers with conversions around them.
#include <algorithm>
#include <set>

#include "lint/rule.h"

namespace rooflens {
namespace {

bool is_convert(const Layer& l) { return is_quantize(l) || is_dequantize(l) || l.op == "Cast"; }

std::set<std::string> names_of(const std::vector<TensorSummary>& ts) {
  std::set<std::string> s;
  for (const auto& t : ts) s.insert(t.name);
  return s;
}

// A Q that quantizes a graph input, or a DQ that produces a graph output: the model's own edges, not a pair
// left inside it.
bool at_model_edge(const RunFacts& f, const Layer& l, const std::set<std::string>& in,
                   const std::set<std::string>& outs) {
  for (const auto& name : l.onnx_nodes) {
    const NodeAnalysis* n = f.node(name);
    if (!n) continue;
    if (is_quantize(l) && !n->inputs.empty() && in.count(n->inputs[0])) return true;
    if (is_dequantize(l) && !n->outputs.empty() && outs.count(n->outputs[0])) return true;
  }
  return false;
}

void unfused_qdq(const RunFacts& f, FindingSink& out) {
  if (f.precision != ModelPrecision::int8) return;
  const auto& layers = f.run.layers;
  const auto in = names_of(f.report.model.inputs), outs = names_of(f.report.model.outputs);
  std::vector<size_t> qdq;
  size_t nq = 0, ndq = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    if (l.alias || !(is_quantize(l) || is_dequantize(l)) || at_model_edge(f, l, in, outs)) continue;
    qdq.push_back(i);
    (is_quantize(l) ? nq : ndq)++;
  }
  if (qdq.empty()) return;
  // DQ -> X ... -> Q: layers between a DequantizeLinear and a QuantizeLinear computed in float although the model
  // asked for them quantized: reachable forward from a DQ and backward from a Q without passing a conversion.
  auto reach = [&](bool (*start)(const Layer&), const std::vector<std::vector<size_t>>& next) {
    std::vector<char> seen(layers.size(), 0);
    std::vector<size_t> stack;
    for (size_t i : qdq)
      if (start(layers[i])) stack.push_back(i);
    while (!stack.empty()) {
      size_t i = stack.back();
      stack.pop_back();
      for (size_t j : next[i])
        if (!seen[j] && !is_convert(layers[j])) {
          seen[j] = 1;
          stack.push_back(j);
        }
    }
    return seen;
  };
  std::vector<char> after_dq = reach(&is_dequantize, f.graph.succ), before_q = reach(&is_quantize, f.graph.pred);
  std::set<size_t> floated;
  for (size_t i = 0; i < layers.size(); ++i)
    if (after_dq[i] && before_q[i]) floated.insert(i);
  size_t round_trips = 0;
  for (size_t q : qdq)
    if (is_quantize(layers[q]))
      for (size_t d : f.graph.succ[q]) round_trips += is_dequantize(layers[d]) ? 1 : 0;
  double ms = sum_ms(f.run, qdq);
  double float_ms = sum_ms(f.run, std::vector<size_t>(floated.begin(), floated.end()));
  Finding& x = out.add(Severity::warning,
                       std::to_string(qdq.size()) + " Q/DQ layer(s) left unfused (" + pct(f.share_of(ms)) +
                           " of layer time); " + std::to_string(floated.size()) +
                           " layer(s) ran in float between DequantizeLinear and QuantizeLinear");
  std::vector<size_t> all = qdq;
  all.insert(all.end(), floated.begin(), floated.end());
  name_layers(x, f.run, all);
  x.evidence = {{"QuantizeLinear layers", static_cast<double>(nq), "count"},
                {"DequantizeLinear layers", static_cast<double>(ndq), "count"},
                {"Q/DQ time share", f.share_of(ms), "ratio"},
                {"Q/DQ time", ms, "ms"},
                {"float layers between DQ and Q", static_cast<double>(floated.size()), "count"},
                {"their time share", f.share_of(float_ms), "ratio"},
                {"Q->DQ round trips", static_cast<double>(round_trips), "count"}};
  x.mitigation =
      "A runtime turns DequantizeLinear -> op -> QuantizeLinear into one integer kernel only for ops it has "
      "integer kernels for (ONNX Runtime's CPU provider: Conv, MatMul, Gemm, Add, Mul, pooling and a few more, at "
      "graph optimization level extended or all). Quantize only those ops, drop the Q/DQ around ops that stay in "
      "float, and use the scales/zero points the fused kernels accept (e.g. symmetric int8 weights). TensorRT "
      "folds a QuantizeLinear into the layer before it only when that layer may write int8 for every reader: "
      "quantize both inputs of a residual Add so it fuses into the convolution instead of leaving a conversion.";
}

void fp32_islands(const RunFacts& f, FindingSink& out) {
  if (f.precision == ModelPrecision::fp32) return;
  const auto& layers = f.run.layers;
  std::vector<char> is_float(layers.size(), 0);
  uint64_t all_flops = 0, float_flops = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    all_flops += l.flops;
    if (l.alias || l.kind != LayerKind::compute || l.flops == 0 || is_convert(l)) continue;
    if (!is_float_dtype(f.compute_dtype(l))) continue;
    is_float[i] = 1;
    float_flops += l.flops;
  }
  // Islands: connected groups of float layers; the conversion layers next to them.
  std::vector<int> island(layers.size(), -1);
  int islands = 0;
  std::set<size_t> members, converts;
  for (size_t s = 0; s < layers.size(); ++s) {
    if (!is_float[s] || island[s] >= 0) continue;
    std::vector<size_t> stack{s};
    island[s] = islands;
    while (!stack.empty()) {
      size_t i = stack.back();
      stack.pop_back();
      members.insert(i);
      for (const auto* next : {&f.graph.succ[i], &f.graph.pred[i]})
        for (size_t j : *next) {
          if (is_convert(layers[j])) converts.insert(j);
          if (is_float[j] && island[j] < 0) {
            island[j] = islands;
            stack.push_back(j);
          }
        }
    }
    ++islands;
  }
  if (members.empty()) return;
  std::vector<size_t> float_layers(members.begin(), members.end()), convert_layers(converts.begin(), converts.end());
  double ms = sum_ms(f.run, float_layers), convert_ms = sum_ms(f.run, convert_layers);
  double flop_share = all_flops > 0 ? static_cast<double>(float_flops) / static_cast<double>(all_flops) : 0;
  Finding& x = out.add(Severity::warning,
                       std::to_string(islands) + " fp32 island(s) in an " + to_string(f.precision) + " model: " +
                           std::to_string(float_layers.size()) + " layer(s) compute in float (" +
                           pct(f.share_of(ms)) + " of layer time, " + pct(flop_share) + " of FLOPs), with " +
                           std::to_string(convert_layers.size()) + " conversion layer(s) around them");
  std::vector<size_t> all = float_layers;
  all.insert(all.end(), convert_layers.begin(), convert_layers.end());
  name_layers(x, f.run, all);
  x.evidence = {{"islands", static_cast<double>(islands), "count"},
                {"float layers", static_cast<double>(float_layers.size()), "count"},
                {"float time share", f.share_of(ms), "ratio"},
                {"float FLOP share", flop_share, "ratio"},
                {"conversion layers", static_cast<double>(convert_layers.size()), "count"},
                {"conversion time share", f.share_of(convert_ms), "ratio"}};
  x.mitigation =
      "Every island converts its inputs up to float and its outputs back (Cast, DequantizeLinear/QuantizeLinear), "
      "and computes at float speed. Quantize (or convert to fp16) the ops inside when the runtime has low-precision "
      "kernels for them; otherwise move the float ops next to each other so fewer conversions happen (converters' "
      "op block lists and keep_io_types settings decide where these islands fall).";
}

}  // namespace

void add_quantization_rules(RuleList& rules) {
  rules.push_back({"unfused-qdq", "quantization",
                   "QuantizeLinear/DequantizeLinear layers left inside a quantized model, and the float ops between them",
                   "https://onnxruntime.ai/docs/performance/model-optimizations/quantization.html", &unfused_qdq});
  rules.push_back({"fp32-island", "quantization",
                   "groups of layers computing in float inside an int8 or fp16 model, with the conversions around them",
                   "https://onnxruntime.ai/docs/performance/model-optimizations/float16.html", &fp32_islands});
}

}  // namespace rooflens
