#include "backends/onnxruntime/ort_kernel_kind.h"

#include <array>
#include <string_view>

namespace rooflens::ort {

namespace {
constexpr std::string_view kCastPrefix = "InsertedPrecisionFreeCast_";
}

std::string without_cast_prefix(const std::string& name) {
  if (name.size() <= kCastPrefix.size() || name.compare(0, kCastPrefix.size(), kCastPrefix) != 0) return "";
  return name.substr(kCastPrefix.size());
}

bool is_inserted_cast(const std::string& op, const std::string& name) {
  return op == "Cast" && !without_cast_prefix(name).empty();
}

LayerKind kernel_kind(const std::string& op, const std::string& name) {
  if (op == "ReorderInput" || op == "ReorderOutput" || op == "Transpose" || is_inserted_cast(op, name))
    return LayerKind::layout;
  if (op == "MemcpyToHost" || op == "MemcpyFromHost") return LayerKind::copy;
  return LayerKind::compute;
}

std::string inserted_for(const std::string& op, const std::string& name) {
  return is_inserted_cast(op, name) ? "precision" : "";
}

Device provider_device(const std::string& provider) {
  static constexpr std::array<std::string_view, 7> gpu = {"CUDAExecutionProvider",    "TensorrtExecutionProvider",
                                                          "ROCMExecutionProvider",    "MIGraphXExecutionProvider",
                                                          "DmlExecutionProvider",     "WebGpuExecutionProvider",
                                                          "NvTensorRTRTXExecutionProvider"};
  static constexpr std::array<std::string_view, 7> npu = {"QNNExecutionProvider",     "NnapiExecutionProvider",
                                                          "CoreMLExecutionProvider",  "VitisAIExecutionProvider",
                                                          "RknpuExecutionProvider",   "ArmNNExecutionProvider",
                                                          "XnnpackExecutionProvider"};
  if (provider == "CPUExecutionProvider") return Device::cpu;
  for (auto p : gpu)
    if (provider == p) return Device::gpu;
  for (auto p : npu)
    if (provider == p) return p == "XnnpackExecutionProvider" || p == "ArmNNExecutionProvider" ? Device::cpu : Device::npu;
  return Device::unknown;
}

std::string onnx_dtype(const std::string& t) {
  if (t == "MLFloat16") return "float16";
  if (t == "BFloat16") return "bfloat16";
  if (t == "Float8E4M3FN") return "float8e4m3fn";
  if (t == "Float8E5M2") return "float8e5m2";
  return t;  // "float", "double", "int8", "uint8", "int64", "bool", "float16", ... are ONNX's names already
}

}  // namespace rooflens::ort
