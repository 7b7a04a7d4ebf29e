#pragma once
// The input tensors of one message to a runtime in a C++ runner program, built from a FeedSpec
// exactly as the ONNX Runtime runner (runners/ort/feeds.mjs) builds them: a named file, else the test data set's
// input_<i>.pb (matched by the name stored in the file, else by position), else values generated with the same
// seeded generator, bit for bit — so two runtimes fed by rooflens see the same numbers, and one's outputs can
// validate the other's.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/tensor_value.h"

namespace rooflens {

struct InputDesc {
  std::string name;
  int32_t data_type = 0;             // ONNX TensorProto.DataType
  std::vector<int64_t> dims;         // -1 where the model leaves a dim open that no symbol names
  std::vector<std::string> symbols;  // per dim: its symbolic name ("" when none)
};

// The model's graph inputs (not initializers) and output names, from rooflens' own reading of the file.
struct ModelIo {
  std::vector<InputDesc> inputs;
  std::vector<std::string> outputs;
};
// `dims` fixes symbolic dims (the run's), so a model whose shapes need them still loads.
// Fixes the dims as load_model does for --dim and --shape; throws UserError.
ModelIo model_io(const std::string& model_path, const std::map<std::string, int64_t>& dims = {},
                 const std::map<std::string, std::vector<int64_t>>& shapes = {});

// Throws BackendError (stage "run", code "input") naming the input when a tensor cannot be built.
std::vector<TensorValue> build_feeds(const std::vector<InputDesc>& inputs, const FeedSpec& feed);

// The ORT runner's generator (runners/ort/rng.mjs): mulberry32 seeded from fnv1a(name) ^ seed; floats uniform in [-1, 1), integers in
// [0, max) (max 100 unless given), bools uniform. Exposed for the test that compares it with the runner's.
TensorValue generate_tensor(const std::string& name, int32_t data_type, const std::vector<int64_t>& dims,
                            uint64_t seed, std::optional<int64_t> max);

}  // namespace rooflens
