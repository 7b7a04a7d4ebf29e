#include "validation/tensor_file.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include <onnx/onnx_pb.h>

#include "core/errors.h"

namespace rooflens {
namespace {

using onnx::TensorProto;

// Copies typed-field values into little-endian element bytes of width sizeof(To). Host is little-endian (x86-64,
// aarch64), like the .pb raw_data layout, so a memcpy per element is the conversion.
template <class To, class Field>
std::string pack(const Field& values) {
  std::string out(static_cast<size_t>(values.size()) * sizeof(To), '\0');
  size_t i = 0;
  for (auto v : values) {
    To t = static_cast<To>(v);
    std::memcpy(out.data() + i * sizeof(To), &t, sizeof(To));
    ++i;
  }
  return out;
}

// Bytes of the typed field that holds `type`'s values (ONNX's TensorProto field rules), and how many values it has.
std::string typed_bytes(const TensorProto& t, int& count) {
  switch (t.data_type()) {
    case TensorProto::FLOAT: count = t.float_data_size(); return pack<float>(t.float_data());
    case TensorProto::DOUBLE: count = t.double_data_size(); return pack<double>(t.double_data());
    case TensorProto::INT64: count = t.int64_data_size(); return pack<int64_t>(t.int64_data());
    case TensorProto::UINT32: count = t.uint64_data_size(); return pack<uint32_t>(t.uint64_data());
    case TensorProto::UINT64: count = t.uint64_data_size(); return pack<uint64_t>(t.uint64_data());
    case TensorProto::INT32: count = t.int32_data_size(); return pack<int32_t>(t.int32_data());
    case TensorProto::INT16: count = t.int32_data_size(); return pack<int16_t>(t.int32_data());
    case TensorProto::INT8: count = t.int32_data_size(); return pack<int8_t>(t.int32_data());
    case TensorProto::UINT16:
    case TensorProto::FLOAT16:   // half bits in int32_data
    case TensorProto::BFLOAT16:  // bfloat16 bits in int32_data
      count = t.int32_data_size();
      return pack<uint16_t>(t.int32_data());
    case TensorProto::UINT8:
    case TensorProto::BOOL: count = t.int32_data_size(); return pack<uint8_t>(t.int32_data());
    default: count = 0; return {};
  }
}

}  // namespace

TensorValue parse_tensor_proto(const std::string& bytes, const std::string& where) {
  TensorProto t;
  if (!t.ParseFromString(bytes)) throw UserError(where + ": not an ONNX TensorProto (protobuf parse failed)");
  if (t.data_location() == TensorProto::EXTERNAL)
    throw UserError(where + ": tensors with external data are not supported; store the data inline");
  TensorValue v;
  v.name = t.name();
  v.data_type = t.data_type();
  for (int64_t d : t.dims()) {
    if (d < 0) throw UserError(where + ": negative dim " + std::to_string(d) + "; the file is corrupted");
    v.dims.push_back(d);
  }
  const int64_t n = v.elements();
  if (n > (int64_t{1} << 34)) throw UserError(where + ": " + std::to_string(n) + " elements is more than rooflens compares");
  if (v.data_type == TensorProto::STRING) {
    if (t.string_data_size() != n)
      throw UserError(where + ": string tensor holds " + std::to_string(t.string_data_size()) + " values, its dims need " +
                      std::to_string(n));
    v.strings.assign(t.string_data().begin(), t.string_data().end());
    return v;
  }
  const int size = onnx_type_size(v.data_type);
  if (size == 0 || v.data_type == TensorProto::COMPLEX64 || v.data_type == TensorProto::COMPLEX128)
    throw UserError(where + ": element type " + onnx_type_name(v.data_type) + " is not supported in test data");
  const uint64_t need = static_cast<uint64_t>(n) * static_cast<uint64_t>(size);
  if (t.has_raw_data()) {
    if (t.raw_data().size() != need)
      throw UserError(where + ": raw_data holds " + std::to_string(t.raw_data().size()) + " bytes, the dims and type need " +
                      std::to_string(need) + "; the file is corrupted");
    v.bytes = t.raw_data();
    return v;
  }
  int count = 0;
  v.bytes = typed_bytes(t, count);
  if (count != n)
    throw UserError(where + ": holds " + std::to_string(count) + " " + onnx_type_name(v.data_type) +
                    " values, its dims need " + std::to_string(n) + "; the file is corrupted");
  return v;
}

TensorValue read_tensor_proto_file(const std::filesystem::path& file) {
  std::ifstream f(file, std::ios::binary);
  if (!f) throw UserError(file.string() + ": cannot read the file");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_tensor_proto(ss.str(), file.string());
}

std::vector<std::filesystem::path> numbered_tensor_files(const std::filesystem::path& dir, const std::string& prefix) {
  std::vector<std::pair<long, std::filesystem::path>> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.size() <= prefix.size() + 3 || name.rfind(prefix, 0) != 0 || !name.ends_with(".pb")) continue;
    std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - 3);
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), digit)) continue;
    found.emplace_back(std::stol(digits), e.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::filesystem::path> out;
  for (auto& [i, p] : found) out.push_back(std::move(p));
  return out;
}

std::vector<TensorValue> read_expected_outputs(const std::filesystem::path& data_set_dir) {
  std::vector<TensorValue> out;
  for (const auto& f : numbered_tensor_files(data_set_dir, "output_")) out.push_back(read_tensor_proto_file(f));
  return out;
}

}  // namespace rooflens
