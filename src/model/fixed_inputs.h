#pragma once
// A model's bytes with its main-graph inputs' dims fixed as --shape/--dim/--batch say. For runtimes that
// read a model without a way to be told input shapes (OpenCV 4.6's importer refuses a Shape node on a
// dynamic dim), so they see the same fixed shapes rooflens analysed.
#include <string>

#include "model/shapes.h"

namespace rooflens {

// Throws UserError naming the file when it cannot be read or parsed, or when a dim stays unresolved.
// External data stays where it is: the bytes refer to it by the same relative paths.
std::string model_bytes_with_fixed_inputs(const std::string& path, const ShapeOverrides& overrides);

}  // namespace rooflens
