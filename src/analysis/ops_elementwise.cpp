// Elementwise ops: FLOPs = (fixed count per output element) x output elements. The counts compose the
// primitives of ops_util.h (basic op 1, transcendental kTrans); docs/cost-model.md spells each one out.
#include <array>
#include <string_view>

#include "analysis/ops_util.h"

namespace rooflens {
namespace ops_elementwise_file {  // this file's helpers and using-directive stay its own in a unity batch
namespace {
using namespace ops;

struct PerElem {
  std::string_view op;
  uint64_t flops;
};

// Unary ops and activations (default domain). Also the activation names of fused ops and RNNs.
constexpr uint64_t kSoftplus = kTrans + 1 + kTrans;  // log(exp(x) + 1)
constexpr std::array kUnary{
    PerElem{"Relu", 1},
    PerElem{"LeakyRelu", 2},                       // multiply, select
    PerElem{"PRelu", 2},                           // multiply by slope, select
    PerElem{"ThresholdedRelu", 1},                 // compare-select
    PerElem{"Elu", kTrans + 3},                    // exp, subtract 1, multiply alpha, select
    PerElem{"Selu", kTrans + 4},                   // Elu + multiply gamma
    PerElem{"Celu", kTrans + 6},                   // divide, exp, subtract, multiply, min, max, add
    PerElem{"Sigmoid", kSigmoid},
    PerElem{"HardSigmoid", 4},                     // multiply, add, min, max
    PerElem{"HardSwish", 5},                       // HardSigmoid, multiply by x
    PerElem{"Tanh", kTrans},
    PerElem{"Softplus", kSoftplus},
    PerElem{"Softsign", 3},                        // abs, add, divide
    PerElem{"Mish", kSoftplus + kTrans + 1},       // x * tanh(softplus(x))
    PerElem{"Clip", 2},                            // min, max
    PerElem{"Shrink", 2},                          // compare, add/subtract bias
    PerElem{"Erf", kTrans},
    PerElem{"Exp", kTrans},
    PerElem{"Log", kTrans},
    PerElem{"Pow", kTrans},
    PerElem{"Sin", kTrans}, PerElem{"Cos", kTrans}, PerElem{"Tan", kTrans},
    PerElem{"Asin", kTrans}, PerElem{"Acos", kTrans}, PerElem{"Atan", kTrans},
    PerElem{"Sinh", kTrans}, PerElem{"Cosh", kTrans},
    PerElem{"Asinh", kTrans}, PerElem{"Acosh", kTrans}, PerElem{"Atanh", kTrans},
    PerElem{"Sqrt", 1}, PerElem{"Reciprocal", 1}, PerElem{"Neg", 1}, PerElem{"Abs", 1},
    PerElem{"Ceil", 1}, PerElem{"Floor", 1}, PerElem{"Round", 1}, PerElem{"Sign", 1},
    PerElem{"Not", 1}, PerElem{"IsNaN", 1}, PerElem{"IsInf", 1}, PerElem{"BitwiseNot", 1},
};

// Binary ops with broadcasting: one operation per output element.
constexpr std::array kBinary{
    "Add", "Sub", "Mul", "Div", "Mod", "Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual",
    "And", "Or", "Xor", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Where",
};

// Exact Gelu 0.5*x*(1+erf(x/sqrt2)): scale, erf, add, 2 multiplies. Tanh form: x^3 (2), *c, +x, *c', tanh,
// +1, *x, *0.5.
constexpr uint64_t kGeluErf = kTrans + 4;
constexpr uint64_t kGeluTanh = kTrans + 8;

// com.microsoft elementwise ops.
constexpr std::array kMsUnary{
    PerElem{"Gelu", kGeluErf},
    PerElem{"BiasGelu", kGeluErf + 1},           // bias add then Gelu
    PerElem{"QuickGelu", kSigmoid + 2},          // x * sigmoid(alpha * x)
    PerElem{"BiasAdd", 2},                       // X + bias + skip
};

// Variadic Sum/Max/Min: n-1 binary ops per output element; Mean adds one divide.
CostFn variadic(uint64_t extra) {
  return [extra](const CostInput& c) {
    if (auto bad = need_out(c, {0})) return *bad;
    // Count inputs the node names (an unresolved input still takes part in the arithmetic).
    uint64_t n = 0;
    if (c.node)
      for (const auto& name : c.node->inputs) n += name.empty() ? 0 : 1;
    else
      for (size_t i = 0; i < c.in.size(); ++i) n += c.has_in(i) ? 1 : 0;
    OpWork w;
    w.flops = sat_mul(u(c.out_elems(0)), (n > 0 ? n - 1 : 0) + extra);
    return w;
  };
}

}  // namespace
}  // namespace ops_elementwise_file

namespace ops {
std::optional<uint64_t> activation_flops(std::string_view op) {
  using namespace ops_elementwise_file;
  for (const auto& e : kUnary)
    if (e.op == op) return e.flops;
  return std::nullopt;
}
}  // namespace ops

void register_elementwise_ops(CostRegistry& r) {
  using namespace ops_elementwise_file;
  for (const auto& e : kUnary) r.add(kOnnx, std::string(e.op), per_output_elem(e.flops));
  for (const char* op : kBinary) r.add(kOnnx, op, per_output_elem(1));
  for (const auto& e : kMsUnary) r.add(kMs, std::string(e.op), per_output_elem(e.flops));

  r.add(kOnnx, "Sum", variadic(0));
  r.add(kOnnx, "Max", variadic(0));
  r.add(kOnnx, "Min", variadic(0));
  r.add(kOnnx, "Mean", variadic(1));

  // A type conversion moves data but does no arithmetic.
  r.add(kOnnx, "Cast", zero_cost());
  r.add(kOnnx, "CastLike", zero_cost());

  // Gelu-20 picks its formula with the `approximate` attribute.
  r.add(kOnnx, "Gelu", [](const CostInput& c) {
    const bool tanh_form = c.node && c.node->attr_s("approximate", "none") == "tanh";
    return per_output_elem(tanh_form ? kGeluTanh : kGeluErf)(c);
  });
  // FastGelu is the tanh form; its optional bias input adds one add per element.
  r.add(kMs, "FastGelu", [](const CostInput& c) {
    return per_output_elem(kGeluTanh + (c.has_in(1) ? 1 : 0))(c);
  });
}

}  // namespace rooflens
