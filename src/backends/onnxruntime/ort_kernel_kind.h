#pragma once
// ONNX Runtime's own names for what a kernel is and where it ran, turned into the report's neutral terms
// (LayerKind, Device, ONNX dtype names). These names stay in this folder: lint rules and views read the
// neutral fields.
#include <string>

#include "core/report.h"

namespace rooflens::ort {

// ReorderInput/ReorderOutput (NCHWc), Transpose -> layout; MemcpyToHost/MemcpyFromHost -> copy; else compute.
LayerKind kernel_kind(const std::string& op_name);
// CPUExecutionProvider -> cpu; CUDA, TensorRT, ROCm, MIGraphX, DirectML, WebGPU -> gpu; QNN, NNAPI, CoreML,
// VitisAI, RKNPU, ... -> npu; anything else (OpenVINO: device set by its options) -> unknown.
Device provider_device(const std::string& provider);
// ORT's spelling of an element type in its profile ("float", "MLFloat16", "int8") -> ONNX's ("float16").
std::string onnx_dtype(const std::string& ort_type);

}  // namespace rooflens::ort
