#pragma once
// int8 kernels that multiply uint8 activations by int8 weights (u8s8), the x86 CPUs on which they lose accuracy, and
// the report's records of it (docs/lint.md, `u8s8-saturation`; docs/profile.md, "int8 on CPUs without VNNI").
//
// ONNX Runtime's CPU provider computes its integer matrix products (QLinearConv, QLinearMatMul, MatMulInteger,
// ConvInteger, QGemm, the dynamic-quantization and attention forms, and the QDQ pairs it fuses into them) with MLAS.
// For u8s8 on an x86 CPU without VNNI (AVX2, or AVX-512 without VNNI) MLAS multiplies with vpmaddubsw, which sums two
// uint8 × int8 products into a signed 16-bit lane and saturates there: 255 × 127 × 2 = 64,770 > 32,767. With VNNI
// (AVX512-VNNI, AVX-VNNI) vpdpbusd sums into 32 bits and nothing saturates. Weights quantized with a reduced range
// (7 bits: |w| <= 64, ORT's quantizer reduce_range=True) keep every pair within 255 × 64 × 2 = 32,640.
#include <cstdint>
#include <string>
#include <vector>

#include "core/output_check.h"

namespace rooflens {

// The largest int8 weight magnitude whose uint8 × int8 pair sums fit a signed 16-bit lane (reduced range).
inline constexpr int64_t kReducedRangeMax = 64;

// An integer matrix product (the ops above, by the name a runtime reports its kernel under).
bool is_integer_matmul_op(const std::string& op);
// Ops that quantize float activations to uint8 themselves before their u8s8 product.
bool quantizes_activations_itself(const std::string& op);

// Whether ONNX Runtime's u8s8 kernels saturate on a CPU with these features (rooflens' names: "avx2", "avx512bw",
// "avx512_vnni", "avx_vnni"; hw/cpu_features.h): x86 with AVX2 or AVX-512BW and neither VNNI.
bool u8s8_saturates(const std::vector<std::string>& isa);
// The same CPU has features rooflens could read at all (an empty list says nothing: a datasheet, an old report).
inline bool isa_known(const std::vector<std::string>& isa) { return !isa.empty(); }

// `model.int8_weights`: the int8 weights the model's integer matrix products multiply (an initializer read by a
// DequantizeLinear whose output is a Conv/ConvTranspose/MatMul/Gemm weight, or the weight input of an integer
// matmul op), with their range. Filled by profile for int8 models (analysis/int8_weights.h).
struct Int8Weights {
  int64_t tensors = 0;            // weight tensors read
  uint64_t elements = 0;          // their values
  int64_t min = 0, max = 0;       // the smallest and largest value over them
  int64_t through_dequantize = 0; // of `tensors`: read through a DequantizeLinear (QDQ), so a run without graph
                                  // optimizations computes their products in float
  // Every value within ±kReducedRangeMax: no u8s8 pair sum can saturate.
  bool reduced_range() const { return tensors > 0 && min >= -kReducedRangeMax && max <= kReducedRangeMax; }
};

// `runs[].int8_check`: an int8 run's outputs against the same model, same inputs, on the same backend with graph
// optimizations disabled (its integer matmuls then run as DequantizeLinear -> float op -> QuantizeLinear, which
// no 16-bit lane limits). Written by profile (profile/int8_check.h) when it made that comparison.
inline constexpr const char* kUnoptimizedReference = "opt-level disabled";
struct Int8Check {
  std::vector<std::string> isa;   // the CPU features the verdict used (the report's machine, else rooflens' cpuid)
  double output_step = 0;         // the outputs' quantization step the tolerance comes from (0: not quantized outputs)
  double rtol = 0, atol = 0;      // the tolerance elements were held to (validation/allclose.h semantics)
  double percent_mismatch = 0;    // the share of an output's elements that may lie beyond it, in percent
  Validation validation;          // reference: kUnoptimizedReference; one data set (the run's own inputs)

  uint64_t elements() const;      // over every compared output
  uint64_t mismatched() const;    // elements beyond the tolerance
  double max_abs_error() const;
  bool passed() const;            // every output within the tolerance (shapes and dtypes equal)
};

}  // namespace rooflens
