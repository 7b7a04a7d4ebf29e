#include "backends/onnxruntime/ort_memory_rules.h"

#include <charconv>
#include <set>

namespace rooflens::ort {
namespace {

std::optional<uint64_t> optional_count(const nlohmann::json& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end()) return std::nullopt;
  if (it->is_number_unsigned()) return it->get<uint64_t>();
  if (!it->is_string()) return std::nullopt;
  const auto& s = it->get_ref<const std::string&>();
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

BufferReuse buffer_reuse(const std::string& op) {
  // onnxruntime/core/providers/cpu/tensor/{reshape,squeeze,unsqueeze,flatten,identity_op}.* and nn/dropout_op.*:
  // KernelDefBuilder().Alias(0, 0) — the output is the input's buffer.
  static const std::set<std::string> alias{"Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity", "Dropout"};
  // onnxruntime/core/providers/cpu/activation/activations.cc registers its unary activations with MayInplace(0, 0):
  // the output may take the input's buffer when that is its last use and the sizes match.
  static const std::set<std::string> inplace{"Relu", "LeakyRelu", "Elu", "Selu", "Celu", "Sigmoid", "HardSigmoid",
                                             "Tanh", "Softplus", "Softsign", "ThresholdedRelu", "ParametricSoftplus",
                                             "ScaledTanh"};
  if (alias.count(op)) return BufferReuse::alias;
  if (inplace.count(op)) return BufferReuse::inplace;
  return BufferReuse::none;
}

std::vector<int> packed_inputs(const std::string& op) {
  // PrePack() of the CPU MatMul/Gemm kernels (MLAS packed B) and of the contrib kernels built on them; ORT frees a
  // weight's original once every kernel reading it has packed it.
  static const std::set<std::string> second{"MatMul", "Gemm", "FusedGemm", "FusedMatMul", "MatMulNBits",
                                            "MatMulInteger", "DynamicQuantizeMatMul", "Attention"};
  if (second.count(op)) return {1};
  if (op == "QLinearMatMul") return {3};
  return {};
}

int maybe_inplace_input(const std::string& op) {
  // onnxruntime/core/contrib_ops/cpu/nchwc_ops.cc (com.microsoft.nchwc Conv) and fused_conv.cc (FusedConv) declare
  // MayInplace(3, 0); the planner applies it only when it inferred equal shapes at inference session creation, which
  // the optimized graph it writes does not record (its NCHWc tensors have none). The profile names the NCHWc kernel
  // "Conv"; ONNX's own Conv has no fourth input, so the rule never applies to it.
  return op == "Conv" || op == "FusedConv" ? 3 : -1;
}

ArenaRules cpu_arena_rules() {
  // onnxruntime/core/framework/bfc_arena.h and .cc, as the CPU provider creates its arena with OrtArenaCfg's defaults:
  // kMinAllocationSize 256 (RoundedBytes), initial_chunk_size_bytes 1 MiB, max_dead_bytes_per_chunk 128 MiB
  // (SplitFreeChunkFromBin splits when the chunk is >= 2x the allocation or would waste that much), and Extend under
  // kNextPowerOfTwo: curr_region_allocation_bytes_ doubles until the allocation fits, and doubles once more after a
  // region that fitted without doubling. FindChunkPtr takes the smallest free chunk that fits (bins by size, each
  // ordered by size then address); a chunk never spans two regions (Extend's TODO: regions are not merged).
  ArenaRules r;
  r.granule = 256;
  r.initial_region = uint64_t{1} << 20;
  r.doubling = true;
  r.max_dead_bytes = uint64_t{128} << 20;
  r.page = 4096;
  return r;
}

KernelAllocator kernel_allocator(const nlohmann::json& args) {
  // onnxruntime/core/framework/sequential_executor.cc adds the arena's statistics to each kernel event when the
  // allocator is an arena: mem_bytes_in_use, mem_in_use_peak, mem_arena_held, and their deltas.
  return {optional_count(args, "mem_bytes_in_use"), optional_count(args, "mem_arena_held")};
}

}  // namespace rooflens::ort
