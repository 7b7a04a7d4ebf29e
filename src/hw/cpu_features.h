#pragma once
// Instruction-set features as one bit mask. A kernel declares the features it needs; the dispatcher runs
// it only when (detected & forced) covers them, so no kernel can execute an instruction this CPU (or this
// OS's saved register state) lacks. Tests pass a forced mask to prove that.
#include <cstdint>
#include <string>
#include <vector>

namespace rooflens::hw {

enum Feature : uint32_t {
  kSse2 = 1u << 0,
  kAvx = 1u << 1,
  kFma = 1u << 2,
  kAvx2 = 1u << 3,
  kAvx512f = 1u << 4,
  kAvx512dq = 1u << 5,
  kAvx512bw = 1u << 6,
  kAvx512vl = 1u << 7,
  kAvx512vnni = 1u << 8,
  kAvx512bf16 = 1u << 9,
  kAvxVnni = 1u << 10,
};
using FeatureMask = uint32_t;

inline constexpr FeatureMask kAllFeatures = (1u << 11) - 1;
inline constexpr FeatureMask kAvx512Family = kAvx512f | kAvx512dq | kAvx512bw | kAvx512vl | kAvx512vnni | kAvx512bf16;

// What this CPU has *and* the OS has enabled (XCR0 via xgetbv): AVX needs YMM state saved, AVX-512 the
// opmask/ZMM state too. A hypervisor can expose a cpuid bit with the state disabled; then it is masked off.
FeatureMask detect_features();

// The CPU's family, model and stepping as CPUID leaf 1 reports them, e.g. "family 25 model 17 stepping 1" (Zen 4); ""
// off x86. A hypervisor may mask the brand string to "AMD EPYC" for every generation it hosts, with the same ISA
// bits: the signature is what still tells a Zen 4 from a Zen 5, whose roofs differ.
std::string cpu_signature();

std::vector<std::string> feature_names(FeatureMask m);  // "sse2", "avx", "fma", ... in bit order
// Parses "avx2,fma" into a mask; throws UserError naming the unknown feature.
FeatureMask parse_features(const std::string& list);

// A dot-product instruction for uint8 × int8 that accumulates in 32 bits (AVX512-VNNI or AVX-VNNI). Without one,
// ONNX Runtime's u8s8 kernels on x86 use AVX2's vpmaddubsw, whose 16-bit sums of two products saturate unless the
// weights use 7 bits (reduce_range): the int8 results of such a CPU differ from a VNNI CPU's (docs/score.md).
bool has_vnni(FeatureMask m);

// The CPU class that decides which of ONNX Runtime's x86 kernels run (fp32 by vector width, int8 by VNNI):
// "avx512-vnni", "avx512", "avx2-vnni" (AVX-VNNI without AVX-512), "avx2", or "other". What `score --project`
// learns efficiency per (docs/score.md).
std::string isa_class(FeatureMask m);

}  // namespace rooflens::hw
