#pragma once
// Human-readable numbers for terminal output (SI prefixes for counts, binary for bytes).
#include <cstdint>
#include <string>
#include <vector>

namespace rooflens {

std::string si(double v, int precision = 2);       // 4.09G, 1.81M, 512
std::string si_bytes(double bytes);                 // 553.4 MB (decimal, as tools like du -h --si print)
std::string fixed(double v, int precision);         // 12.35
std::string with_commas(uint64_t v);                // 25,557,032
std::string shape_text(const std::vector<int64_t>& shape);  // "1x3x224x224", "?" for a dim < 0, "scalar" for {}

}  // namespace rooflens
