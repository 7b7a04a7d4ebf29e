// Accuracy: int8 runs whose kernels lose accuracy on this machine — ONNX Runtime's u8s8 kernels on an x86 CPU without
// VNNI, where a 16-bit intermediate saturates unless the weights were quantized with a reduced range
// (core/int8_kernels.h), with the deviation from an unoptimized run when profile measured it (runs[].int8_check).
#include <cstdio>
#include <map>

#include "lint/rule.h"

namespace rooflens {
namespace {

bool reads(const std::vector<std::string>& dtypes, const char* dtype) {
  for (const auto& d : dtypes)
    if (d == dtype) return true;
  return false;
}

// A layer that multiplied uint8 activations by int8 weights, as the runtime reported its inputs (a prepacked weight
// may be missing from them; its int8 zero point is not).
bool is_u8s8(const Layer& l) {
  if (l.alias || !is_integer_matmul_op(l.op) || l.input_dtypes.empty() || !reads(l.input_dtypes, "int8")) return false;
  return l.input_dtypes[0] == "uint8" || quantizes_activations_itself(l.op);
}

std::vector<size_t> u8s8_layers(const ProfileRun& run) {
  std::vector<size_t> out;
  for (size_t i = 0; i < run.layers.size(); ++i)
    if (is_u8s8(run.layers[i])) out.push_back(i);
  return out;
}

// A run without layers (--no-layers): the model's nodes the runtime fuses into u8s8 kernels — integer matmul nodes
// reading uint8 and int8, and Conv/MatMul/Gemm nodes whose activation and weight come from DequantizeLinear nodes of
// uint8 and int8 (QDQ).
std::vector<std::string> u8s8_nodes(const Analysis& a) {
  std::map<std::string, const NodeAnalysis*> producer;
  for (const auto& n : a.nodes)
    for (const auto& t : n.outputs) producer[t] = &n;
  auto dequantizes = [&producer](const std::string& tensor, const char* dtype) {
    auto it = producer.find(tensor);
    return it != producer.end() && it->second->op == "DequantizeLinear" && !it->second->input_dtypes.empty() &&
           it->second->input_dtypes[0] == dtype;
  };
  std::vector<std::string> out;
  for (const auto& n : a.nodes) {
    const bool integer = is_integer_matmul_op(n.op) && reads(n.input_dtypes, "int8") && !n.input_dtypes.empty() &&
                         (n.input_dtypes[0] == "uint8" || quantizes_activations_itself(n.op));
    const bool qdq = (n.op == "Conv" || n.op == "MatMul" || n.op == "Gemm") && n.inputs.size() >= 2 &&
                     dequantizes(n.inputs[0], "uint8") && dequantizes(n.inputs[1], "int8");
    if (integer || qdq) out.push_back(n.name);
  }
  return out;
}

// The CPU the verdict is about: the one profile's check recorded, else the report's machine.
const std::vector<std::string>* machine_isa(const RunFacts& f) {
  if (f.run.int8_check && isa_known(f.run.int8_check->isa)) return &f.run.int8_check->isa;
  if (f.report.hardware && isa_known(f.report.hardware->machine.isa)) return &f.report.hardware->machine.isa;
  return nullptr;
}

std::string weights_text(const Int8Weights& w) {
  return std::to_string(w.tensors) + " int8 weight tensor(s) spanning " + std::to_string(w.min) + "…" +
         std::to_string(w.max);
}

// "12.5", "0.075", "4": up to 4 significant digits, no trailing zeros.
std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string deviation_text(const Int8Check& c) {
  const std::string tolerance = c.output_step > 0
                                    ? "more than 1.5 quantization steps (" + short_number(c.atol) + ") from"
                                    : "beyond rtol " + short_number(c.rtol) + " atol " + short_number(c.atol) + " of";
  std::string max = short_number(c.max_abs_error());
  if (c.output_step > 0) max += ", " + short_number(c.max_abs_error() / c.output_step) + " steps";
  return std::to_string(c.mismatched()) + " of " + std::to_string(c.elements()) + " output elements " + tolerance +
         " a run at " + kUnoptimizedReference + " (max abs error " + max + "; " + short_number(c.percent_mismatch) +
         "% may differ)";
}

const char* kWhy =
    "ONNX Runtime multiplies uint8 activations by int8 weights with vpmaddubsw on x86 CPUs without VNNI: it adds two "
    "products into a signed 16-bit lane, which saturates (255 x 127 x 2 > 32,767) and changes the result without an "
    "error. ";

// What to do, after "Run " or "run ".
const char* kFixes =
    "the u8u8 kernels instead, which do not saturate (ONNX Runtime's session.x64quantprecision: -B "
    "onnxruntime:session.x64quantprecision=1, at some cost in speed), or quantize the weights so no pair can "
    "saturate: with a reduced range (7 bits, |w| <= 64: onnxruntime.quantization's reduce_range=True) or as uint8 "
    "(U8U8: weight_type=QuantType.QUInt8). Signed activations (S8S8) do not help on x86: ONNX Runtime turns them into "
    "uint8 before fusing (its s8s8 kernels are for ARM and x86 CPUs with AVX-VNNI-INT8).";

void add_evidence(Finding& x, const RunFacts& f, const std::vector<size_t>& layers, size_t nodes) {
  if (!layers.empty()) {
    x.evidence.push_back({"u8s8 layers", static_cast<double>(layers.size()), "count"});
    x.evidence.push_back({"their time share", f.share_of(sum_ms(f.run, layers)), "ratio"});
  } else {
    x.evidence.push_back({"u8s8 nodes", static_cast<double>(nodes), "count"});
  }
  if (const auto& w = f.report.model.int8_weights) {
    x.evidence.push_back({"int8 weight min", static_cast<double>(w->min), ""});
    x.evidence.push_back({"int8 weight max", static_cast<double>(w->max), ""});
  }
  if (const auto& c = f.run.int8_check) {
    x.evidence.push_back({"output elements beyond tolerance", static_cast<double>(c->mismatched()), "count"});
    x.evidence.push_back({"output elements compared", static_cast<double>(c->elements()), "count"});
    x.evidence.push_back({"max abs error", c->max_abs_error(), ""});
  }
}

void u8s8_saturation(const RunFacts& f, FindingSink& out) {
  if (f.precision != ModelPrecision::int8) return;
  const std::vector<size_t> layers = u8s8_layers(f.run);
  const std::vector<std::string> nodes = f.run.layers.empty() ? u8s8_nodes(f.report.model.analysis)
                                                              : std::vector<std::string>{};
  const std::vector<std::string>* isa = machine_isa(f);
  if ((layers.empty() && nodes.empty()) || !isa) return;
  const std::optional<Int8Weights>& w = f.report.model.int8_weights;
  if (w && w->reduced_range()) return;  // no pair sum can saturate, with or without VNNI
  const std::string what = layers.empty() ? std::to_string(nodes.size()) + " u8s8 node(s)"
                                          : std::to_string(layers.size()) + " u8s8 layer(s)";
  const std::string range = w ? " (" + weights_text(*w) + ")" : "";
  Finding* x = nullptr;
  if (!u8s8_saturates(*isa)) {
    if (!w) return;  // full range unknown: nothing to say about other CPUs
    x = &out.add(Severity::info, what + " multiply full-range int8 weights" + range +
                                     ": no saturation here (VNNI), but on x86 CPUs without VNNI they saturate");
    x->mitigation = std::string("This CPU sums uint8 x int8 products in 32 bits (VNNI). On AVX2 CPUs and AVX-512 CPUs "
                                "without VNNI (AMD Zen 1-3, Intel servers before Cascade Lake and clients before Ice "
                                "Lake, many cloud instances) ONNX "
                                "Runtime multiplies with vpmaddubsw, whose 16-bit pair sums saturate with these "
                                "weights. To ship this model to them, run ") + kFixes;
  } else if (f.run.int8_check && !f.run.int8_check->passed()) {
    x = &out.add(Severity::error, what + " on a CPU without VNNI: " + deviation_text(*f.run.int8_check));
  } else if (f.run.int8_check) {
    x = &out.add(Severity::info, what + " on a CPU without VNNI" + range + "; on this run's inputs the outputs stayed "
                                 "within tolerance of a run at " + kUnoptimizedReference + " (max abs error " +
                                 short_number(f.run.int8_check->max_abs_error()) + ")");
  } else {
    x = &out.add(Severity::warning, what + " on a CPU without VNNI" + range +
                                        ": their 16-bit pair sums saturate with full-range weights");
    x->mitigation = std::string(kWhy) + "Run " + kFixes + " rooflens profile --int8-check always measures the outputs against a "
                    "run at --opt-level disabled (QDQ models).";
  }
  if (x->mitigation.empty()) x->mitigation = std::string(kWhy) + "Run " + kFixes;
  if (!layers.empty()) name_layers(*x, f.run, layers);
  else x->onnx_nodes = nodes;
  add_evidence(*x, f, layers, nodes.size());
}

}  // namespace

void add_accuracy_rules(RuleList& rules) {
  rules.push_back({"u8s8-saturation", "accuracy",
                   "int8 kernels (uint8 x int8) whose 16-bit sums saturate on x86 CPUs without VNNI, with the measured "
                   "deviation from an unoptimized run",
                   "https://onnxruntime.ai/docs/performance/model-optimizations/quantization.html", &u8s8_saturation});
}

}  // namespace rooflens
