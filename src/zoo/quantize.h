#pragma once
// `rooflens zoo make NAME --quantize qdq`: the model as a static int8 quantizer writes it in QDQ format when told
// to quantize only the matmul-class ops (op_types_to_quantize = Conv, MatMul, Gemm): QuantizeLinear ->
// DequantizeLinear on each of their activation inputs and outputs, int8 weights and int32 biases behind
// DequantizeLinear. Everything else (BatchNormalization, activations, Add, pooling, normalization) stays float
// between a DequantizeLinear and the next QuantizeLinear — what a runtime cannot fuse shows up in its profile.
// No calibration: weights use symmetric per-tensor scales (max |w| / 127), activations one fixed uint8 scale, so
// the outputs are not the float model's; the graph and the runtime's handling of it are what matter here.
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

// Rewrites `model` in place (it must carry its weights). Throws UserError when the opset is below 13 (per-tensor
// QuantizeLinear/DequantizeLinear with the dtypes used here need 13).
QdqStats quantize_qdq(onnx::ModelProto& model);

}  // namespace rooflens::zoo
