#pragma once
// `rooflens zoo make NAME --quantize qdq`: the model as a static int8 quantizer writes it in QDQ format when told
// to quantize only the matmul-class ops (op_types_to_quantize = Conv, MatMul, Gemm): QuantizeLinear ->
// DequantizeLinear on each of their activation inputs and outputs, int8 weights and int32 biases behind
// DequantizeLinear. Everything else (BatchNormalization, activations, Add, pooling, normalization) stays float
// between a DequantizeLinear and the next QuantizeLinear — what a runtime cannot fuse shows up in its profile.
// No calibration: weights use symmetric per-tensor scales (max |w| / 127), activations one fixed uint8 scale, so
// the outputs are not the float model's; the graph and the runtime's handling of it are what matter here.
//
// `reduce_range` (`--reduce-range`) quantizes weights to 7 bits (max |w| / 64, values in [-64, 64]), as ONNX
// Runtime's quantizer does with reduce_range=True for machines without VNNI: there its u8s8 kernels (AVX2's
// vpmaddubsw) add two uint8 × int8 products in a saturating 16-bit lane, and 2 × 255 × 127 = 64,770 overflows it
// while 2 × 255 × 64 = 32,640 does not — so the reduced-range model computes the same integers with and without VNNI.
#include <cstdint>

#include <onnx/onnx_pb.h>

namespace rooflens::zoo {

struct QdqStats {
  int64_t quantized_nodes = 0;   // Conv / MatMul / Gemm nodes wrapped
  int64_t quantize_nodes = 0;    // QuantizeLinear added
  int64_t dequantize_nodes = 0;  // DequantizeLinear added
};

inline constexpr float kActivationScale = 0.05f;       // uint8 activations: [-6.4, 6.35] around zero point 128
inline constexpr int32_t kActivationZeroPoint = 128;
inline constexpr int32_t kWeightRange = 127;              // full range: int8 weights in [-127, 127]
inline constexpr int32_t kReducedWeightRange = 64;        // reduce_range: 7 bits, [-64, 64]

struct QdqOptions {
  bool reduce_range = false;     // 7-bit weights: no 16-bit saturation in non-VNNI u8s8 kernels (above)
};

// Rewrites `model` in place (it must carry its weights). Throws UserError when the opset is below 13 (per-tensor
// QuantizeLinear/DequantizeLinear with the dtypes used here need 13).
QdqStats quantize_qdq(onnx::ModelProto& model, const QdqOptions& options = {});

}  // namespace rooflens::zoo
