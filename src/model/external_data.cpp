// External data (tensors stored in side files) must resolve strictly inside the model's directory:
// a model file is untrusted input, and "location: ../../etc/shadow" must never be opened.
#include <sys/stat.h>

#include <filesystem>

#include <onnx/onnx_pb.h>

#include "core/errors.h"
#include "model/external_data.h"
#include "model/graph.h"

namespace rooflens {

namespace fs = std::filesystem;

namespace {
uint64_t parse_u64(const std::string& s, const std::string& what) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19)
    throw UserError(what + " is not a non-negative integer ('" + s + "')");
  return std::stoull(s);
}
}  // namespace

ExternalRef resolve_external_data(const onnx::TensorProto& t, const std::string& model_file,
                                  const std::string& model_dir) {
  ExternalRef ref;
  std::string location;
  bool has_length = false;
  const std::string where = model_file + ": initializer '" + t.name() + "'";
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") ref.offset = parse_u64(kv.value(), where + " external offset");
    else if (kv.key() == "length") { ref.length = parse_u64(kv.value(), where + " external length"); has_length = true; }
  }
  if (location.empty()) throw UserError(where + " uses external data but names no location");
  if (model_dir.empty())
    throw UserError(where + " uses external data, which is not allowed for in-memory models");
  fs::path loc(location);
  bool escapes = loc.is_absolute() || location.find('\0') != std::string::npos;
  for (const auto& part : loc)
    if (part == "..") escapes = true;
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(fs::path(model_dir), ec);
  fs::path target = fs::weakly_canonical(fs::path(model_dir) / loc, ec);
  if (!escapes && !ec) {
    auto rel = target.lexically_relative(dir);
    escapes = rel.empty() || *rel.begin() == "..";  // symlinks resolved by weakly_canonical
  }
  if (escapes || ec)
    throw UserError(where + " points outside the model directory ('" + location +
                    "'); external data must live next to the model — move the file and fix the location");
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    throw UserError(where + " refers to external file '" + location + "', which does not exist next to the model");
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (!has_length) ref.length = size > ref.offset ? size - ref.offset : 0;
  if (ref.offset > size || ref.length > size - ref.offset)
    throw UserError(where + " reads bytes " + std::to_string(ref.offset) + "+" + std::to_string(ref.length) +
                    " of '" + location + "', which has only " + std::to_string(size) + " bytes (truncated?)");
  ref.file = target.string();
  return ref;
}

}  // namespace rooflens
