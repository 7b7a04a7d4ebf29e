#pragma once
// Reference tensors from disk: ONNX TensorProto files, as test_data_set_N/{input,output}_<i>.pb hold them.
#include <filesystem>
#include <string>
#include <vector>

#include "core/tensor_value.h"

namespace rooflens {

// Parses a serialized TensorProto (raw_data or the typed fields, packed or not). `where` names the source in
// errors. Throws UserError (one line) on bytes that are not a tensor rooflens can hold: external data, a
// negative dim, data that disagrees with the dims, an element type without a fixed layout.
TensorValue parse_tensor_proto(const std::string& bytes, const std::string& where);
TensorValue read_tensor_proto_file(const std::filesystem::path& file);

// `<prefix><i>.pb` files of `dir` in index order (output_0.pb, output_1.pb, ..., output_10.pb).
std::vector<std::filesystem::path> numbered_tensor_files(const std::filesystem::path& dir, const std::string& prefix);

// The expected outputs of one test data set: its output_<i>.pb files, in index order.
std::vector<TensorValue> read_expected_outputs(const std::filesystem::path& data_set_dir);

}  // namespace rooflens
