#pragma once
// A copy of a model whose main graph lists extra tensors as graph outputs, so a runtime returns them: how
// `analyze --check-runtime` observes every intermediate tensor's shape. The rewrite is done at the protobuf wire
// level — the graph message gets more `output` entries appended — so a model of any size is copied through
// once and its weights are never parsed.
#include <filesystem>
#include <string>
#include <vector>

namespace rooflens {

// Writes `model` to `out` with `names` appended to its main graph's outputs (names already outputs must not be
// given again). External data files stay where the model's folder has them: `out` should sit next to the
// model, or the caller links them. Throws UserError naming the file on unreadable or malformed input.
void write_with_outputs(const std::filesystem::path& model, const std::vector<std::string>& names,
                        const std::filesystem::path& out);

}  // namespace rooflens
