// RunFacts (what every rule of a run shares) and the small helpers rules use.
#include <algorithm>
#include <cstdio>
#include <set>

#include "lint/rule.h"

namespace rooflens {
namespace {

bool is_quantization_op(const std::string& op) {
  static const std::set<std::string> ops = {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
                                            "MatMulInteger", "ConvInteger", "DynamicQuantizeMatMul",
                                            "MatMulIntegerToFloat"};
  return ops.count(op) > 0 || op.rfind("QLinear", 0) == 0 || op == "QGemm" || op == "QAttention";
}

bool is_matmul_class(const NodeAnalysis& n) { return n.macs > 0; }

bool is_integer_dtype(const std::string& d) { return d == "int8" || d == "uint8" || d == "int4" || d == "uint4"; }

bool is_half_float(const std::string& d) { return d == "float16" || d == "bfloat16"; }

// fp16 when most of the matmul-class work reads a 16-bit float.
ModelPrecision by_half_share(uint64_t half, uint64_t all) {
  return all > 0 && half * 2 > all ? ModelPrecision::fp16 : ModelPrecision::fp32;
}

ModelPrecision classify(const Analysis& a) {
  uint64_t low = 0, all = 0;
  for (const auto& n : a.nodes) {
    if (is_quantization_op(n.op)) return ModelPrecision::int8;
    if (!is_matmul_class(n) || n.input_dtypes.empty()) continue;
    all += n.macs;
    if (is_half_float(n.input_dtypes[0])) low += n.macs;
  }
  return by_half_share(low, all);
}

// What the run itself computed in: an engine built for int8 or fp16 from an fp32 file (TensorRT's --int8/--fp16,
// OpenVINO's inference precision) computes in a precision its model does not show, and an imported run may have
// no model at all. int8 when any layer that computes reads an integer type, fp16 when most of the FLOPs read a
// 16-bit float.
ModelPrecision classify(const ProfileRun& run) {
  uint64_t low = 0, all = 0;
  for (const auto& l : run.layers) {
    if (l.flops == 0 || l.kind != LayerKind::compute) continue;
    const std::string& d = !l.precision.empty() ? l.precision : l.input_dtypes.empty() ? "" : l.input_dtypes[0];
    if (is_integer_dtype(d)) return ModelPrecision::int8;
    all += l.flops;
    if (is_half_float(d)) low += l.flops;
  }
  return by_half_share(low, all);
}

ModelPrecision lower_of(ModelPrecision a, ModelPrecision b) {
  auto rank = [](ModelPrecision p) { return p == ModelPrecision::int8 ? 2 : p == ModelPrecision::fp16 ? 1 : 0; };
  return rank(a) >= rank(b) ? a : b;
}

// A layer that only changes element type, as the runtime reported its tensors: float in, integer out
// (quantize) or the reverse (dequantize). Runtimes that run the user's QuantizeLinear as a conversion kernel
// (TensorRT's reformats of Q/DQ origin) name it their own way; its types say what it is.
bool converts(const Layer& l, bool (*from)(const std::string&), bool (*to)(const std::string&)) {
  return l.kind == LayerKind::compute && l.flops == 0 && !l.input_dtypes.empty() && !l.output_dtypes.empty() &&
         from(l.input_dtypes[0]) && to(l.output_dtypes[0]);
}

bool is_any_float(const std::string& d) { return is_float_dtype(d) || is_half_float(d); }

void add_unique(std::vector<size_t>& v, size_t x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

}  // namespace

const char* to_string(ModelPrecision p) {
  switch (p) {
    case ModelPrecision::fp32: return "fp32";
    case ModelPrecision::fp16: return "fp16";
    case ModelPrecision::int8: return "int8";
  }
  return "?";
}

RunFacts::RunFacts(const Report& r, const ProfileRun& run_) : report(r), run(run_), label(run_.label()) {
  for (const auto& l : run.layers) layer_ms += l.time_ms;
  const auto& nodes = r.model.analysis.nodes;
  precision = lower_of(classify(r.model.analysis), classify(run));
  for (size_t i = 0; i < nodes.size(); ++i) node_index.emplace(nodes[i].name, i);
  node_layer.assign(nodes.size(), -1);
  for (size_t li = 0; li < run.layers.size(); ++li) {
    const Layer& l = run.layers[li];
    if (l.alias) continue;
    for (const auto& name : l.onnx_nodes) {
      auto it = node_index.find(name);
      if (it != node_index.end()) node_layer[it->second] = static_cast<int>(li);
    }
  }
  // Tensor -> consuming layers, then each layer's outputs to those consumers.
  std::unordered_map<std::string, std::vector<size_t>> readers;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (node_layer[i] < 0) continue;
    for (const auto& t : nodes[i].inputs)
      if (!t.empty()) add_unique(readers[t], static_cast<size_t>(node_layer[i]));
  }
  graph.succ.assign(run.layers.size(), {});
  graph.pred.assign(run.layers.size(), {});
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (node_layer[i] < 0) continue;
    size_t from = static_cast<size_t>(node_layer[i]);
    for (const auto& t : nodes[i].outputs) {
      auto it = readers.find(t);
      if (it == readers.end()) continue;
      for (size_t to : it->second)
        if (to != from) {
          add_unique(graph.succ[from], to);
          add_unique(graph.pred[to], from);
        }
    }
  }
  for (auto& v : graph.succ) std::sort(v.begin(), v.end());
  for (auto& v : graph.pred) std::sort(v.begin(), v.end());
}

const NodeAnalysis* RunFacts::node(const std::string& name) const {
  auto it = node_index.find(name);
  return it == node_index.end() ? nullptr : &report.model.analysis.nodes[it->second];
}

std::string RunFacts::compute_dtype(const Layer& l) const {
  if (!l.input_dtypes.empty()) return l.input_dtypes[0];
  for (const auto& name : l.onnx_nodes)
    if (const NodeAnalysis* n = node(name); n && !n->input_dtypes.empty()) return n->input_dtypes[0];
  return "";
}

Finding& FindingSink::add(Severity severity, std::string title) {
  Finding f;
  f.rule = rule_.id;
  f.severity = severity;
  f.run = run_;
  f.title = std::move(title);
  f.read_more = rule_.read_more;
  out_.push_back(std::move(f));
  return out_.back();
}

double sum_ms(const ProfileRun& run, const std::vector<size_t>& layers) {
  double s = 0;
  for (size_t i : layers) s += run.layers[i].time_ms;
  return s;
}

void name_layers(Finding& f, const ProfileRun& run, std::vector<size_t> layers) {
  std::stable_sort(layers.begin(), layers.end(),
                   [&run](size_t a, size_t b) { return run.layers[a].time_ms > run.layers[b].time_ms; });
  std::set<std::string> seen;
  for (size_t i : layers) {
    f.layers.push_back(run.layers[i].name);
    for (const auto& n : run.layers[i].onnx_nodes)
      if (seen.insert(n).second) f.onnx_nodes.push_back(n);
  }
}

std::string pct(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", ratio * 100);
  return buf;
}

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  return buf;
}

bool is_float_dtype(const std::string& d) { return d == "float" || d == "double"; }

bool is_quantize(const Layer& l) {
  return l.op == "QuantizeLinear" || converts(l, &is_any_float, &is_integer_dtype);
}

bool is_dequantize(const Layer& l) {
  return l.op == "DequantizeLinear" || converts(l, &is_integer_dtype, &is_any_float);
}

bool is_low_precision_dtype(const std::string& d) {
  return is_half_float(d) || is_integer_dtype(d) || d.rfind("float8", 0) == 0;
}

}  // namespace rooflens
