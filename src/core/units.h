#pragma once
// Human-readable numbers for terminal output (SI prefixes for counts, binary for bytes).
#include <cstdint>
#include <string>

namespace rooflens {

std::string si(double v, int precision = 2);       // 4.09G, 1.81M, 512
std::string si_bytes(double bytes);                 // 553.4 MB (decimal, as tools like du -h --si print)
std::string fixed(double v, int precision);         // 12.35
std::string with_commas(uint64_t v);                // 25,557,032

}  // namespace rooflens
