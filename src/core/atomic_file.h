#pragma once
// Whole-file writes that a crash or a kill can never leave half-written.
#include <string>

namespace rooflens {

// Writes `text` to `path` atomically (temp file in the same directory + rename). Throws UserError.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace rooflens
