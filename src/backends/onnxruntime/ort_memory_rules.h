#pragma once
// What ONNX Runtime's CPU kernels declare about their buffers, in the report's neutral terms (docs/memory.md gives the
// sources): which outputs alias or may take an input's buffer, which constant inputs a kernel packs into a copy of its
// own at inference session creation, and the allocator figures ORT 1.30 writes into each kernel event of its profile.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/memory.h"

namespace rooflens::ort {

// Reshape, Squeeze, Unsqueeze, Flatten, Identity, Dropout: Alias(0, 0); the unary activations: MayInplace(0, 0).
BufferReuse buffer_reuse(const std::string& op_name);
// Positions (among present inputs) of the weights MatMul, Gemm and their fused and quantized forms pre-pack.
std::vector<int> packed_inputs(const std::string& op_name);
// The input whose buffer output 0 may take when the allocation planner finds their shapes equal (-1: none): the
// fused residual Sum of the NCHWc Conv and of FusedConv, MayInplace(3, 0).
int maybe_inplace_input(const std::string& op_name);

// ORT's CPU arena (BFCArena with its default configuration, kNextPowerOfTwo) in the report's neutral terms.
ArenaRules cpu_arena_rules();

// A kernel event's allocator figures (args mem_bytes_in_use, mem_arena_held; present when the CPU arena is on).
struct KernelAllocator {
  std::optional<uint64_t> in_use, held;
};
KernelAllocator kernel_allocator(const nlohmann::json& args);

}  // namespace rooflens::ort
