#pragma once
// The int8 weights a model's integer matrix products multiply, and their range (core/int8_kernels.h: full-range
// weights can saturate ONNX Runtime's u8s8 kernels on x86 CPUs without VNNI; weights within ±64 cannot).
//
// Unlike the rest of the analysis this reads weight payloads: only the int8 tensors found below, once, and only when
// a caller asks (profile, for int8 models; bench, to explain an int8 model's failed validation).
#include <optional>

#include "core/int8_kernels.h"
#include "model/graph.h"

namespace rooflens {

// The main graph's int8 weights: initializers read by a DequantizeLinear whose output a Conv, ConvTranspose, MatMul
// or Gemm reads (QDQ), and the weight inputs of integer matmul ops (QLinearConv, MatMulInteger, ...). nullopt when
// the model has none, or when their bytes cannot be read (external data gone since loading).
std::optional<Int8Weights> int8_weights(const Model& model);

// The quantization step of the model's outputs: the largest scale of the DequantizeLinear nodes that produce its
// graph outputs. nullopt unless every output is so produced with a scalar scale stored in the model file.
std::optional<double> output_quantization_step(const Model& model);

}  // namespace rooflens
