#pragma once
// Kineto writes its traces gzipped when the file name ends in .gz (and people share them that way): the importer
// reads the bytes the import command gave it, compressed or not.
#include <cstddef>
#include <string>
#include <string_view>

namespace rooflens::importers {

// True when `bytes` start with gzip's magic number (1f 8b).
bool is_gzip(std::string_view bytes);
// The whole content of every gzip member in `bytes`. Throws UserError "<path>: not a complete gzip file (...)" or
// "<path>: more than <limit> MiB once decompressed" (a small file may expand a thousandfold).
std::string gunzip(std::string_view bytes, const std::string& path, size_t limit);
// At most `n` bytes of the decompressed start, for sniffing the format; "" when it is not gzip. Never throws.
std::string gunzip_head(std::string_view bytes, size_t n);

}  // namespace rooflens::importers
