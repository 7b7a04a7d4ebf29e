// Bandwidth kernels. Loops are unrolled to 8 vectors per iteration so loop overhead never limits L1
// bandwidth; an empty asm with a "memory" clobber between passes stops the compiler from collapsing repeated
// passes over the same data.
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

// read: loads only, 8 per iteration into registers nothing reads, like likwid-bench's load_avx512. Summing
// the loads instead (8 or 16 accumulators) reached only ~190 of ~280 GB/s from L1 here: the adds compete
// with the loop for the two 512-bit vector ports and any stall on an add chain stalls the loads behind it.
// The loads are inline asm because the compiler would (rightly) delete loads whose results are unused.
// Four streams (the array's quarters, 2 loads each per iteration): one stream left the hardware prefetchers idle at
// each 4 KiB page and read DRAM slower than triad's three streams did (18.0 against 20.6 GB/s on a thread, Zen 3),
// so a kernel reading several tensors at once could run above the "read" roof; four read 22-23.
#define RL_LOAD2(OP, R, STEP, Q, A, B) OP " 0*" STEP "(%" Q "), %%" R A "\n\t" OP " 1*" STEP "(%" Q "), %%" R B "\n\t"
#define RL_READ_KERNEL(SUFFIX, TARGET, W, OP, R, STEP)                                           \
  __attribute__((target(TARGET))) double read_##SUFFIX(const BwArgs& g) {                      \
    const size_t quarter = g.n / 4;                                                             \
    for (uint64_t p = 0; p < g.passes; ++p) {                                                   \
      for (const double *q = g.b, *end = g.b + quarter; q < end; q += 2 * W)                    \
        __asm__ volatile(RL_LOAD2(OP, R, STEP, "0", "0", "1") RL_LOAD2(OP, R, STEP, "1", "2", "3")  \
                         RL_LOAD2(OP, R, STEP, "2", "4", "5") RL_LOAD2(OP, R, STEP, "3", "6", "7")  \
                         :                                                                      \
                         : "r"(q), "r"(q + quarter), "r"(q + 2 * quarter), "r"(q + 3 * quarter) \
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "memory"); \
    }                                                                                           \
    return g.b[0];                                                                              \
  }
RL_READ_KERNEL(avx512, "avx512f", 8, "vmovapd", "zmm", "64")
RL_READ_KERNEL(avx2, "avx2", 4, "vmovapd", "ymm", "32")

// VEC-wide versions; W = doubles per vector, so one iteration moves 8*W doubles per array.
#define RL_BW_KERNELS(SUFFIX, TARGET, VEC, W, LOAD, STORE, ADD, MUL, SET1)                    \
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
              _mm512_set1_pd)
RL_BW_KERNELS(avx2, "avx2", __m256d, 4, _mm256_load_pd, _mm256_store_pd, _mm256_add_pd, _mm256_mul_pd,
              _mm256_set1_pd)

#endif  // __x86_64__

// --quick measures reads and writes as well as triad: a cache level's ceiling for a kernel that reads and writes is
// its read and write figures together (analysis/roofline.cpp), and without the write figure a first profile held an
// elementwise layer to the read figure alone — 1.3-1.7x below what the layer ran at, reported as an attribution error.
std::vector<BwKernel> make_set(BwFn r, BwFn w, BwFn c, BwFn t) {
  return {{"read", 1, 1, r, true}, {"write", 1, 1, w, true}, {"copy", 2, 2, c}, {"triad", 3, 3, t, true}};
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
