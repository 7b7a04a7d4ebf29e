// Compute-peak kernels. Each is the same shape: kChains accumulators, each updated by one multiply-add
// per iteration with loop-invariant operands, so the only dependency is a chain on itself.
// Operands keep values bounded (acc*0.999999 + 1e-6 converges) so no denormals or infinities slow things.
#include "hw/compute_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rooflens::hw {
namespace {

#if defined(__x86_64__)

// One kernel per (vector type, ISA). The body is a macro rather than a template because intrinsics must be
// expanded inside a function carrying the matching target attribute (GCC does not propagate it to
// templates or lambdas instantiated from it).
// The hot loop is 12 long EVEX instructions; aligned to 64 bytes its closing branch cannot straddle a
// 32-byte boundary, which on Skylake-derived cores (JCC erratum microcode) evicts the loop from the uop cache
// and cost ~35% of peak here (measured: ~60 vs ~90 GFLOP/s fp32 AVX-512 on this Cascade Lake VM).
#if defined(__clang__)
#define RL_ALIGN_LOOPS
#else
#define RL_ALIGN_LOOPS optimize("align-loops=64")
#endif

#define RL_CHAIN_KERNEL(NAME, TARGET, VEC, SET1, UPDATE, SCALAR_T, STORE, LANES)        \
  __attribute__((target(TARGET), RL_ALIGN_LOOPS)) double NAME(uint64_t iters) {         \
    VEC acc[kChains];                                                                   \
    for (int i = 0; i < kChains; ++i) acc[i] = SET1(static_cast<SCALAR_T>(1 + i));      \
    const VEC m = SET1(static_cast<SCALAR_T>(0.999999));                                 \
    const VEC a = SET1(static_cast<SCALAR_T>(1e-6));                                     \
    for (uint64_t k = 0; k < iters; ++k) {                                              \
      _Pragma("GCC unroll 12") for (int i = 0; i < kChains; ++i) acc[i] = UPDATE(acc[i], m, a); \
    }                                                                                   \
    alignas(64) SCALAR_T out[LANES];                                                    \
    double sum = 0;                                                                     \
    for (int i = 0; i < kChains; ++i) {                                                 \
      STORE(out, acc[i]);                                                               \
      sum += static_cast<double>(out[0]);                                               \
    }                                                                                   \
    return sum;                                                                         \
  }

// SSE2 has no FMA: a multiply then an add (2 FLOPs per lane, two dependent ops per chain).
#define RL_MULADD_PS(x, m, a) _mm_add_ps(_mm_mul_ps(x, m), a)
#define RL_MULADD_PD(x, m, a) _mm_add_pd(_mm_mul_pd(x, m), a)
RL_CHAIN_KERNEL(fp32_sse2, "sse2", __m128, _mm_set1_ps, RL_MULADD_PS, float, _mm_store_ps, 4)
RL_CHAIN_KERNEL(fp64_sse2, "sse2", __m128d, _mm_set1_pd, RL_MULADD_PD, double, _mm_store_pd, 2)
RL_CHAIN_KERNEL(fp32_scalar_fma, "fma", __m128, _mm_set1_ps, _mm_fmadd_ss, float, _mm_store_ps, 4)
RL_CHAIN_KERNEL(fp64_scalar_fma, "fma", __m128d, _mm_set1_pd, _mm_fmadd_sd, double, _mm_store_pd, 2)
RL_CHAIN_KERNEL(fp32_sse_fma, "fma", __m128, _mm_set1_ps, _mm_fmadd_ps, float, _mm_store_ps, 4)
RL_CHAIN_KERNEL(fp64_sse_fma, "fma", __m128d, _mm_set1_pd, _mm_fmadd_pd, double, _mm_store_pd, 2)
RL_CHAIN_KERNEL(fp32_avx2_fma, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps, float, _mm256_store_ps, 8)
RL_CHAIN_KERNEL(fp64_avx2_fma, "avx2,fma", __m256d, _mm256_set1_pd, _mm256_fmadd_pd, double, _mm256_store_pd, 4)
RL_CHAIN_KERNEL(fp32_avx512_fma, "avx512f", __m512, _mm512_set1_ps, _mm512_fmadd_ps, float, _mm512_store_ps, 16)
RL_CHAIN_KERNEL(fp64_avx512_fma, "avx512f", __m512d, _mm512_set1_pd, _mm512_fmadd_pd, double, _mm512_store_pd, 8)

// int8 dot products: vpdpbusd multiplies 4 u8 x s8 pairs per 32-bit lane and adds them to the lane
// (4 multiplies + 4 adds = 8 ops per lane). Integer wrap-around is harmless here.
#define RL_SET1_EPI32(v) _mm512_set1_epi32(static_cast<int>(v))
#define RL_DPBUSD_512(x, m, a) _mm512_dpbusd_epi32(x, m, a)
#define RL_STORE_EPI32_512(p, v) _mm512_store_si512(reinterpret_cast<void*>(p), v)
RL_CHAIN_KERNEL(int8_avx512_vnni, "avx512f,avx512vnni", __m512i, RL_SET1_EPI32, RL_DPBUSD_512, int32_t,
                RL_STORE_EPI32_512, 16)
#define RL_SET1_EPI32_256(v) _mm256_set1_epi32(static_cast<int>(v))
#define RL_DPBUSD_256(x, m, a) _mm256_dpbusd_avx_epi32(x, m, a)
#define RL_STORE_EPI32_256(p, v) _mm256_store_si256(reinterpret_cast<__m256i*>(p), v)
RL_CHAIN_KERNEL(int8_avx_vnni, "avx2,avxvnni", __m256i, RL_SET1_EPI32_256, RL_DPBUSD_256, int32_t,
                RL_STORE_EPI32_256, 8)
// int8 dot products without VNNI, the way ONNX Runtime's AVX2 u8s8 kernels do them: vpmaddubsw multiplies 32 u8 x s8
// pairs and adds neighbours into 16 saturating s16, vpmaddwd by ones adds neighbours into 8 s32, vpaddd accumulates
// — 32 multiplies and 32 adds per register, 8 ops per 32-bit lane as with vpdpbusd, in three instructions, two of
// them on the multiply pipes. The accumulator feeds the multiply (as the activations would) so nothing is hoisted out
// of the loop; the operands come through volatile reads so no constant is folded. Ten chains, not kChains: each step
// holds a temporary, and twelve accumulators with it and the two operands spill AVX2's sixteen registers (measured on
// a Zen 3 EPYC: 12 chains 130, 10 chains 145-170 GOPS per core; a chain is 7 cycles long, so 10 keep both pipes fed).
constexpr int kInt8Avx2Chains = 10;
__attribute__((target("avx2"), RL_ALIGN_LOOPS)) double int8_avx2(uint64_t iters) {
  __m256i acc[kInt8Avx2Chains];
  for (int i = 0; i < kInt8Avx2Chains; ++i) acc[i] = _mm256_set1_epi32(1 + i);
  volatile int weights = 0x01fe02fd, one = 0x00010001;
  const __m256i w = _mm256_set1_epi32(weights), ones = _mm256_set1_epi32(one);
  for (uint64_t k = 0; k < iters; ++k) {
    _Pragma("GCC unroll 10") for (int i = 0; i < kInt8Avx2Chains; ++i)
      acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(_mm256_maddubs_epi16(acc[i], w), ones));
  }
  alignas(32) int32_t out[8];
  double sum = 0;
  for (int i = 0; i < kInt8Avx2Chains; ++i) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(out), acc[i]);
    sum += static_cast<double>(out[0]);
  }
  return sum;
}
// bf16 dot products: vdpbf16ps multiplies 2 bf16 pairs per fp32 lane and accumulates (4 FLOPs per lane).
#define RL_SET1_BF16(v) ((__m512bh)_mm512_set1_epi16(static_cast<short>(0x3f80)))
#define RL_DPBF16(x, m, a) _mm512_dpbf16_ps(x, m, a)
__attribute__((target("avx512f,avx512bf16"), RL_ALIGN_LOOPS)) double bf16_avx512(uint64_t iters) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512bh m = RL_SET1_BF16(1.0), a = RL_SET1_BF16(1.0);
  for (uint64_t k = 0; k < iters; ++k) {
    _Pragma("GCC unroll 12") for (int i = 0; i < kChains; ++i) acc[i] = RL_DPBF16(acc[i], m, a);
  }
  alignas(64) float out[16];
  double sum = 0;
  for (int i = 0; i < kChains; ++i) {
    _mm512_store_ps(out, acc[i]);
    sum += out[0];
  }
  return sum;
}

#endif  // __x86_64__

}  // namespace

const std::vector<ComputeKernel>& compute_kernels() {
  // Ops per iteration = chains x lanes x ops per lane per instruction (FMA: 2).
  static const std::vector<ComputeKernel> all = {
#if defined(__x86_64__)
      {"fp32_fma_avx512", "avx512", "fp32", kAvx512f, kChains * 16 * 2.0, fp32_avx512_fma, true},
      {"fp32_fma_avx2", "avx2", "fp32", kAvx2 | kFma, kChains * 8 * 2.0, fp32_avx2_fma, true},
      {"fp32_fma_sse", "sse", "fp32", kFma, kChains * 4 * 2.0, fp32_sse_fma},
      {"fp32_fma_scalar", "scalar", "fp32", kFma, kChains * 1 * 2.0, fp32_scalar_fma},
      {"fp32_muladd_sse2", "sse2", "fp32", kSse2, kChains * 4 * 2.0, fp32_sse2, true},
      {"fp64_fma_avx512", "avx512", "fp64", kAvx512f, kChains * 8 * 2.0, fp64_avx512_fma},
      {"fp64_fma_avx2", "avx2", "fp64", kAvx2 | kFma, kChains * 4 * 2.0, fp64_avx2_fma},
      {"fp64_fma_sse", "sse", "fp64", kFma, kChains * 2 * 2.0, fp64_sse_fma},
      {"fp64_fma_scalar", "scalar", "fp64", kFma, kChains * 1 * 2.0, fp64_scalar_fma},
      {"fp64_muladd_sse2", "sse2", "fp64", kSse2, kChains * 2 * 2.0, fp64_sse2},
      {"int8_dot_avx512_vnni", "avx512_vnni", "int8", kAvx512f | kAvx512vnni, kChains * 16 * 8.0, int8_avx512_vnni},
      {"int8_dot_avx_vnni", "avx_vnni", "int8", kAvx2 | kAvxVnni, kChains * 8 * 8.0, int8_avx_vnni},
      {"int8_madd_avx2", "avx2", "int8", kAvx2, kInt8Avx2Chains * 8 * 8.0, int8_avx2},
      {"bf16_dot_avx512", "avx512_bf16", "bf16", kAvx512f | kAvx512bf16, kChains * 16 * 4.0, bf16_avx512},
#endif
  };
  return all;
}

std::vector<ComputeKernel> select_compute(const std::vector<ComputeKernel>& all, FeatureMask mask) {
  std::vector<ComputeKernel> out;
  for (const auto& k : all)
    if ((k.needs & mask) == k.needs) out.push_back(k);
  return out;
}

}  // namespace rooflens::hw
