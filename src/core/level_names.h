#pragma once
// Names of the memory levels a bandwidth sweep finds (hw/levels.h, docs/roofs.md), and their order. A cache level
// is named after the reported caches its plateau spans: "L2" for one, "L1+L2" when two (or more) read alike and
// the sweep shows one plateau for both (a Zen-1 EPYC reads L1 and L2 at the same speed); "DRAM" is memory.
// Every consumer of level names (roofline placement, plausibility, the HTML page) orders and matches them here.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rooflens {

// The caches a level spans, as numbers (1 = L1): "L1+L2" is {1, 2}, "L3" {3, 3}, "DRAM" {kDramLevel, kDramLevel}.
struct LevelSpan {
  int first = 0, last = 0;
};
inline constexpr int kDramLevel = 9;
inline constexpr std::string_view kDramName = "DRAM";

// A cache level's capacity as the sweep found it: the reported size when that size named its fall, else twice where
// its plateau ended (a cache starts losing a cyclic sweep up to a factor of 2 before its capacity). DRAM is what lies
// beyond 4x the last cache's (STREAM's rule): where levels.cpp starts DRAM, and where placement stops holding a layer
// to that cache.
inline uint64_t cache_capacity(uint64_t plateau_end, uint64_t reported_bytes) {
  return reported_bytes ? (reported_bytes > plateau_end ? reported_bytes : plateau_end) : 2 * plateau_end;
}

// "L<first>" or "L<first>+...+L<last>" (1 <= first <= last <= 8).
std::string cache_level_name(int first, int last);

// The span a level name denotes; nullopt for a name that is no memory level ("L2+L1", "L0", "HBM", "").
std::optional<LevelSpan> level_span(std::string_view name);

// Nearer levels first: by first cache, then last; names that are no level after all others.
bool level_nearer(std::string_view a, std::string_view b);

}  // namespace rooflens
