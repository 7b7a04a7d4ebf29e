// The u8s8 facts (which ops, which CPUs) and the JSON form of the int8 records (docs/report-schema.md).
#include "core/int8_kernels.h"

#include <algorithm>
#include <set>

#include "core/json_fields.h"

namespace rooflens {
namespace {

bool has(const std::vector<std::string>& isa, const char* feature) {
  return std::find(isa.begin(), isa.end(), feature) != isa.end();
}

}  // namespace

bool is_integer_matmul_op(const std::string& op) {
  static const std::set<std::string> ops = {"QLinearConv",  "QLinearMatMul",         "MatMulInteger",
                                            "ConvInteger",  "QGemm",                 "QAttention",
                                            "MatMulIntegerToFloat", "DynamicQuantizeMatMul", "DynamicQuantizeLSTM"};
  return ops.count(op) > 0;
}

bool quantizes_activations_itself(const std::string& op) {
  return op == "DynamicQuantizeMatMul" || op == "DynamicQuantizeLSTM";
}

bool u8s8_saturates(const std::vector<std::string>& isa) {
  const bool madd_ubsw = has(isa, "avx2") || has(isa, "avx512bw");  // MLAS' AVX2 and AVX-512 core kernels
  const bool vnni = has(isa, "avx512_vnni") || has(isa, "avx_vnni");
  return madd_ubsw && !vnni;
}

uint64_t Int8Check::elements() const {
  uint64_t n = 0;
  for (const auto& o : validation.outputs) n += o.elements;
  return n;
}

uint64_t Int8Check::mismatched() const {
  uint64_t n = 0;
  for (const auto& o : validation.outputs) n += o.mismatched;
  return n;
}

double Int8Check::max_abs_error() const {
  double m = 0;
  for (const auto& o : validation.outputs) m = std::max(m, o.max_abs_error);
  return m;
}

bool Int8Check::passed() const {
  return std::all_of(validation.outputs.begin(), validation.outputs.end(), [](const OutputCheck& o) { return o.passed; });
}

ROOFLENS_JSON_FIELDS(Int8Weights, tensors, elements, min, max, through_dequantize)
ROOFLENS_JSON_FIELDS(Int8Check, isa, output_step, rtol, atol, percent_mismatch, validation)

}  // namespace rooflens
