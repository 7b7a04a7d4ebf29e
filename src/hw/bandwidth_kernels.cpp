// Bandwidth kernels. Loops are unrolled to 8 vectors per iteration so loop overhead never limits L1
// bandwidth, and reads feed 8 independent add chains (add latency x 2 ports); an empty asm with a "memory"
// clobber between passes stops the compiler from collapsing repeated passes over the same data.
#include "hw/bandwidth_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rooflens::hw {
namespace {

#define RL_PASS_BARRIER() __asm__ volatile("" ::: "memory")

double read_portable(const BwArgs& g) {
  double s[8] = {};
  for (uint64_t p = 0; p < g.passes; ++p) {
    for (size_t i = 0; i < g.n; i += 8)
      for (int k = 0; k < 8; ++k) s[k] += g.b[i + k];
    RL_PASS_BARRIER();
  }
  return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}
double write_portable(const BwArgs& g) {
  for (uint64_t p = 0; p < g.passes; ++p) {
    for (size_t i = 0; i < g.n; ++i) g.a[i] = 1.0;
    RL_PASS_BARRIER();
  }
  return g.a[0];
}
double copy_portable(const BwArgs& g) {
  for (uint64_t p = 0; p < g.passes; ++p) {
    for (size_t i = 0; i < g.n; ++i) g.a[i] = g.b[i];
    RL_PASS_BARRIER();
  }
  return g.a[0];
}
double triad_portable(const BwArgs& g) {
  for (uint64_t p = 0; p < g.passes; ++p) {
    for (size_t i = 0; i < g.n; ++i) g.a[i] = g.b[i] + 3.0 * g.c[i];
    RL_PASS_BARRIER();
  }
  return g.a[0];
}

#if defined(__x86_64__)

// VEC-wide versions; W = doubles per vector, so one iteration moves 8*W doubles per array.
#define RL_BW_KERNELS(SUFFIX, TARGET, VEC, W, LOAD, STORE, ADD, MUL, SET1, SETZERO, STORE_U)    \
  __attribute__((target(TARGET))) double read_##SUFFIX(const BwArgs& g) {                      \
    VEC s0 = SETZERO(), s1 = SETZERO(), s2 = SETZERO(), s3 = SETZERO();                         \
    VEC s4 = SETZERO(), s5 = SETZERO(), s6 = SETZERO(), s7 = SETZERO();                         \
    for (uint64_t p = 0; p < g.passes; ++p) {                                                   \
      for (size_t i = 0; i < g.n; i += 8 * W) {                                                 \
        const double* q = g.b + i;                                                              \
        s0 = ADD(s0, LOAD(q + 0 * W));                                                          \
        s1 = ADD(s1, LOAD(q + 1 * W));                                                          \
        s2 = ADD(s2, LOAD(q + 2 * W));                                                          \
        s3 = ADD(s3, LOAD(q + 3 * W));                                                          \
        s4 = ADD(s4, LOAD(q + 4 * W));                                                          \
        s5 = ADD(s5, LOAD(q + 5 * W));                                                          \
        s6 = ADD(s6, LOAD(q + 6 * W));                                                          \
        s7 = ADD(s7, LOAD(q + 7 * W));                                                          \
      }                                                                                         \
      RL_PASS_BARRIER();                                                                        \
    }                                                                                           \
    alignas(64) double out[W];                                                                  \
    STORE_U(out, ADD(ADD(ADD(s0, s1), ADD(s2, s3)), ADD(ADD(s4, s5), ADD(s6, s7))));            \
    return out[0];                                                                              \
  }                                                                                             \
  __attribute__((target(TARGET))) double write_##SUFFIX(const BwArgs& g) {                     \
    const VEC v = SET1(1.0);                                                                    \
    for (uint64_t p = 0; p < g.passes; ++p) {                                                   \
      for (size_t i = 0; i < g.n; i += 8 * W) {                                                 \
        _Pragma("GCC unroll 8") for (int k = 0; k < 8; ++k) STORE(g.a + i + k * W, v);          \
      }                                                                                         \
      RL_PASS_BARRIER();                                                                        \
    }                                                                                           \
    return g.a[0];                                                                              \
  }                                                                                             \
  __attribute__((target(TARGET))) double copy_##SUFFIX(const BwArgs& g) {                      \
    for (uint64_t p = 0; p < g.passes; ++p) {                                                   \
      for (size_t i = 0; i < g.n; i += 8 * W) {                                                 \
        _Pragma("GCC unroll 8") for (int k = 0; k < 8; ++k) STORE(g.a + i + k * W, LOAD(g.b + i + k * W)); \
      }                                                                                         \
      RL_PASS_BARRIER();                                                                        \
    }                                                                                           \
    return g.a[0];                                                                              \
  }                                                                                             \
  __attribute__((target(TARGET))) double triad_##SUFFIX(const BwArgs& g) {                     \
    const VEC s = SET1(3.0);                                                                    \
    for (uint64_t p = 0; p < g.passes; ++p) {                                                   \
      for (size_t i = 0; i < g.n; i += 8 * W) {                                                 \
        _Pragma("GCC unroll 8") for (int k = 0; k < 8; ++k)                                     \
          STORE(g.a + i + k * W, ADD(LOAD(g.b + i + k * W), MUL(s, LOAD(g.c + i + k * W))));   \
      }                                                                                         \
      RL_PASS_BARRIER();                                                                        \
    }                                                                                           \
    return g.a[0];                                                                              \
  }

RL_BW_KERNELS(avx512, "avx512f", __m512d, 8, _mm512_load_pd, _mm512_store_pd, _mm512_add_pd, _mm512_mul_pd,
              _mm512_set1_pd, _mm512_setzero_pd, _mm512_store_pd)
RL_BW_KERNELS(avx2, "avx2", __m256d, 4, _mm256_load_pd, _mm256_store_pd, _mm256_add_pd, _mm256_mul_pd,
              _mm256_set1_pd, _mm256_setzero_pd, _mm256_store_pd)

#endif  // __x86_64__

std::vector<BwKernel> make_set(BwFn r, BwFn w, BwFn c, BwFn t) {
  return {{"read", 1, 1, r, true}, {"write", 1, 1, w}, {"copy", 2, 2, c}, {"triad", 3, 3, t, true}};
}

}  // namespace

const std::vector<BwKernelSet>& bandwidth_kernel_sets() {
  static const std::vector<BwKernelSet> sets = {
#if defined(__x86_64__)
      {"avx512", kAvx512f, make_set(read_avx512, write_avx512, copy_avx512, triad_avx512)},
      {"avx2", kAvx2, make_set(read_avx2, write_avx2, copy_avx2, triad_avx2)},
#endif
      {"portable", 0, make_set(read_portable, write_portable, copy_portable, triad_portable)},
  };
  return sets;
}

const BwKernelSet& select_bandwidth(FeatureMask mask) {
  for (const auto& s : bandwidth_kernel_sets())
    if ((s.needs & mask) == s.needs) return s;
  return bandwidth_kernel_sets().back();
}

}  // namespace rooflens::hw
