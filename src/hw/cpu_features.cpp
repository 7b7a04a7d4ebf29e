// cpuid/xgetbv feature detection. Bit positions are from Intel SDM vol. 2A, CPUID leaf 1 and leaf 7.
#include "hw/cpu_features.h"

#include <array>
#include <sstream>

#include "core/errors.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace rooflens::hw {
namespace {

struct FeatureName { Feature bit; const char* name; };
constexpr std::array<FeatureName, 11> kNames{{
    {kSse2, "sse2"}, {kAvx, "avx"}, {kFma, "fma"}, {kAvx2, "avx2"}, {kAvx512f, "avx512f"},
    {kAvx512dq, "avx512dq"}, {kAvx512bw, "avx512bw"}, {kAvx512vl, "avx512vl"}, {kAvx512vnni, "avx512_vnni"},
    {kAvx512bf16, "avx512_bf16"}, {kAvxVnni, "avx_vnni"},
}};

#if defined(__x86_64__) || defined(__i386__)
uint64_t xcr0() {
  uint32_t lo = 0, hi = 0;
  // Raw xgetbv so this file needs no target attribute; only called once OSXSAVE says it is allowed.
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t{hi} << 32) | lo;
}
#endif

}  // namespace

FeatureMask detect_features() {
  FeatureMask m = 0;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  if (d & (1u << 26)) m |= kSse2;
  bool osxsave = c & (1u << 27);
  bool avx = c & (1u << 28), fma = c & (1u << 12);
  uint64_t xcr = osxsave ? xcr0() : 0;
  bool ymm_state = (xcr & 0x6) == 0x6;            // SSE + AVX state
  bool zmm_state = ymm_state && (xcr & 0xE0) == 0xE0;  // opmask, ZMM_Hi256, Hi16_ZMM
  if (avx && ymm_state) m |= kAvx;
  if (fma && ymm_state) m |= kFma;
  unsigned max_leaf = __get_cpuid_max(0, nullptr);
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    if ((b & (1u << 5)) && ymm_state) m |= kAvx2;
    if (zmm_state) {
      if (b & (1u << 16)) m |= kAvx512f;
      if (b & (1u << 17)) m |= kAvx512dq;
      if (b & (1u << 30)) m |= kAvx512bw;
      if (b & (1u << 31)) m |= kAvx512vl;
      if (c & (1u << 11)) m |= kAvx512vnni;
    }
    unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
    __cpuid_count(7, 1, a1, b1, c1, d1);
    if ((a1 & (1u << 4)) && ymm_state) m |= kAvxVnni;
    if ((a1 & (1u << 5)) && zmm_state) m |= kAvx512bf16;
  }
#endif
  return m;
}

std::string cpu_signature() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return "";
  // The displayed family and model (Intel SDM vol. 2A, CPUID leaf 1, EAX): the extended fields count only where the
  // base family says they are used.
  const unsigned stepping = a & 0xf, base_model = (a >> 4) & 0xf, base_family = (a >> 8) & 0xf;
  const unsigned family = base_family == 0xf ? base_family + ((a >> 20) & 0xff) : base_family;
  const unsigned model = base_family == 0x6 || base_family == 0xf ? (((a >> 16) & 0xf) << 4) + base_model : base_model;
  return "family " + std::to_string(family) + " model " + std::to_string(model) + " stepping " + std::to_string(stepping);
#else
  return "";
#endif
}

std::vector<std::string> feature_names(FeatureMask m) {
  std::vector<std::string> out;
  for (const auto& f : kNames)
    if (m & f.bit) out.emplace_back(f.name);
  return out;
}

FeatureMask parse_features(const std::string& list) {
  FeatureMask m = 0;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    bool found = false;
    for (const auto& f : kNames)
      if (item == f.name) m |= f.bit, found = true;
    if (!found) throw UserError("unknown ISA feature '" + item + "' (known: sse2, avx, fma, avx2, avx512f, ...)");
  }
  return m;
}

bool has_vnni(FeatureMask m) { return (m & (kAvx512vnni | kAvxVnni)) != 0; }

std::string isa_class(FeatureMask m) {
  const std::string vnni = has_vnni(m) ? "-vnni" : "";
  if (m & kAvx512f) return "avx512" + vnni;
  if (m & kAvx2) return "avx2" + vnni;
  return "other";
}

}  // namespace rooflens::hw
