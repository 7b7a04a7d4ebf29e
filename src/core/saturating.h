#pragma once
// Saturating unsigned arithmetic for work counts. Models can carry absurd dims (2^40 and beyond); a count
// that overflows must pin at the maximum instead of wrapping into a plausible-looking small number.
#include <cstdint>
#include <limits>

namespace rooflens {

inline constexpr uint64_t kCountMax = std::numeric_limits<uint64_t>::max();

inline uint64_t sat_add(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? kCountMax : r;
}

inline uint64_t sat_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? kCountMax : r;
}

template <typename... Rest>
uint64_t sat_mul(uint64_t a, uint64_t b, Rest... rest) {
  return sat_mul(sat_mul(a, b), static_cast<uint64_t>(rest)...);
}

// Clamp a possibly negative (unknown) dim to a count; unknown counts as 0 work, callers mark it unknown.
inline uint64_t as_count(int64_t v) { return v < 0 ? 0 : static_cast<uint64_t>(v); }

}  // namespace rooflens
