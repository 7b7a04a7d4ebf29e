#pragma once
// The trivial model of `rooflens capacity --self-test`: one Identity from input "x" float[batch, 16] to output "y",
// so whatever a capacity run measures on it is the cost of the path around the runtime (generator, pipes, runner).
#include <filesystem>

namespace rooflens::zoo {

// Writes it to `path`. Throws UserError when the file cannot be written.
void save_identity_model(const std::filesystem::path& path);

}  // namespace rooflens::zoo
