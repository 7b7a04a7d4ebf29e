// Quantisation boundaries and QLinear* elementwise ops. A QLinear op is costed as its float counterpart
// plus kQuantize per output element for requantising to the output scale/zero point; dequantising the
// inputs is folded into integer arithmetic by real kernels, so it is not charged again.
#include <array>
#include <string_view>

#include "analysis/ops_util.h"

namespace rooflens {
namespace ops_quant_file {  // this file's helpers and using-directive stay its own in a unity batch
namespace {
using namespace ops;

struct QElem { std::string_view op; uint64_t float_flops; std::vector<int> params; };

}  // namespace
}  // namespace ops_quant_file

void register_quant_ops(CostRegistry& r) {
  using namespace ops_quant_file;
  for (const char* d : {kOnnx, kMs}) {
    // Scales and zero points are not parameters. A DequantizeLinear fed by an int8 initializer is how
    // QDQ models store their weights, so its x (input 0) is.
    r.add(d, "QuantizeLinear", with_params(per_input_elem(kQuantize), {}));
    r.add(d, "DequantizeLinear", with_params(per_input_elem(kDequantize), {0}));
  }
  r.add(kOnnx, "DynamicQuantizeLinear", with_params(per_input_elem(kDynQuantize), {}));

  const std::array<QElem, 6> qlinear{{
      {"QLinearAdd", 1, {0, 3}},                // A and B (inputs 0, 3) may be constant int8 tensors
      {"QLinearMul", 1, {0, 3}},
      {"QLinearSigmoid", kSigmoid, {}},
      {"QLinearLeakyRelu", 2, {}},
      {"QLinearSoftmax", kSoftmaxPerElem, {}},
      {"QLinearConcat", 0, {}},                 // copy + requantise inputs to the output scale
  }};
  for (const auto& q : qlinear)
    r.add(kMs, std::string(q.op), with_params(per_output_elem(q.float_flops + kQuantize), q.params));
}

}  // namespace rooflens
