#pragma once
// ONNX Runtime's own names for what a kernel is and where it ran, turned into the report's neutral terms
// (LayerKind, Device, ONNX dtype names). These names stay in this folder: lint rules and views read the
// neutral fields.
#include <string>

#include "core/layer_kind.h"

namespace rooflens::ort {

// ReorderInput/ReorderOutput (NCHWc), Transpose, casts ORT inserted -> layout; MemcpyToHost/MemcpyFromHost -> copy;
// else compute.
LayerKind kernel_kind(const std::string& op_name, const std::string& node_name = {});
// Why ORT added the kernel itself ("precision": a Cast around a kernel that has no float16 version), else "".
std::string inserted_for(const std::string& op_name, const std::string& node_name);

// The Casts ORT inserts around kernels that lack a float16 version (its CPU provider has few): named
// "InsertedPrecisionFreeCast_<tensor>", as is the float32 tensor each writes.
bool is_inserted_cast(const std::string& op_name, const std::string& node_name);
// "InsertedPrecisionFreeCast_x" -> "x" (a node, kernel or tensor name); "" for names without that prefix.
std::string without_cast_prefix(const std::string& name);
// CPUExecutionProvider -> cpu; CUDA, TensorRT, ROCm, MIGraphX, DirectML, WebGPU -> gpu; QNN, NNAPI, CoreML,
// VitisAI, RKNPU, ... -> npu; anything else (OpenVINO: device set by its options) -> unknown.
Device provider_device(const std::string& provider);
// ORT's spelling of an element type in its profile ("float", "MLFloat16", "int8") -> ONNX's ("float16").
std::string onnx_dtype(const std::string& ort_type);

}  // namespace rooflens::ort
