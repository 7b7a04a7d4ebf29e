#pragma once
// A model's graph inputs and outputs exactly as the file declares them (symbolic dims kept), without resolving
// shapes: what a caller needs to decide which shapes to ask for (rooflens generate's decoder detection).
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/tensor.h"

namespace rooflens {

struct DeclaredValue {
  std::string name;
  TensorInfo type;  // dims with their symbols; has_rank false when no shape is declared
};

struct DeclaredIo {
  std::vector<DeclaredValue> inputs;   // graph inputs that are not initializers, in file order
  std::vector<DeclaredValue> outputs;
  const DeclaredValue* input(const std::string& name) const;
  const DeclaredValue* output(const std::string& name) const;
};

// Reads only the graph structure (weights stay on disk). Throws UserError naming the file when it is not a model.
DeclaredIo read_declared_io(const std::string& path);
// The same from bytes in memory (the fuzz target); `path` names them in messages.
DeclaredIo declared_io_from_bytes(const uint8_t* data, size_t size, const std::string& path);

}  // namespace rooflens
