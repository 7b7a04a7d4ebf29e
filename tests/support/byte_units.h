#pragma once
// Byte units for tests' sizes, defined once: test files compile in unity batches, where two files' own constants of
// one name would collide.
#include <cstdint>

namespace rooflens::testing {
inline constexpr uint64_t KiB = 1024, MiB = KiB * KiB, GiB = MiB * KiB;
}  // namespace rooflens::testing
