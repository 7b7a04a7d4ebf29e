#pragma once
// Deterministic weight generation. Each tensor gets its own SplitMix64 stream seeded from (model seed,
// tensor name), so a tensor's values do not depend on build order and regenerating one model never
// shifts another. SplitMix64 is used because it is tiny, passes BigCrush, and fills ~1 GB/s on one core,
// which keeps `zoo make vgg16` (138 M floats) well under a second of generation time.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "stats/splitmix64.h"

namespace rooflens::zoo {

// FNV-1a: a stable, platform-independent hash (std::hash is allowed to differ between libraries).
inline std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ULL;
  return h;
}

// Fills out[0..n) with uniform floats in [lo, hi). Two 24-bit mantissas per 64-bit draw.
inline void fill_uniform(float* out, std::size_t n, std::uint64_t seed, float lo, float hi) {
  stats::SplitMix64 rng(seed);
  const float scale = (hi - lo) * (1.0f / 16777216.0f);
  std::size_t i = 0;
  for (; i + 1 < n; i += 2) {
    const std::uint64_t r = rng.next();
    out[i] = lo + static_cast<float>(r >> 40) * scale;
    out[i + 1] = lo + static_cast<float>((r >> 16) & 0xFFFFFF) * scale;
  }
  if (i < n) out[i] = lo + static_cast<float>(rng.next() >> 40) * scale;
}

}  // namespace rooflens::zoo
