#include "zoo/save.h"

#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/errors.h"

namespace rooflens::zoo {

namespace {

std::ofstream open_for_write(const std::filesystem::path& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw UserError("cannot write '" + path.string() + "': check that the directory exists and is writable");
  return out;
}

void finish_write(std::ofstream& out, const std::filesystem::path& path) {
  out.flush();
  if (!out) throw UserError("writing '" + path.string() + "' failed (disk full?)");
}

void add_entry(onnx::TensorProto& t, const std::string& key, const std::string& value) {
  auto* e = t.add_external_data();
  e->set_key(key);
  e->set_value(value);
}

std::uint64_t move_weights_out(onnx::ModelProto& model, const std::filesystem::path& data_path) {
  std::ofstream data = open_for_write(data_path);
  const std::string location = data_path.filename().string();
  const std::vector<char> zeros(kExternalAlignment, 0);
  std::uint64_t offset = 0;
  for (auto& t : *model.mutable_graph()->mutable_initializer()) {
    if (t.raw_data().empty()) continue;
    const std::uint64_t pad = (kExternalAlignment - offset % kExternalAlignment) % kExternalAlignment;
    data.write(zeros.data(), static_cast<std::streamsize>(pad));
    offset += pad;
    const std::uint64_t length = t.raw_data().size();
    data.write(t.raw_data().data(), static_cast<std::streamsize>(length));
    add_entry(t, "location", location);
    add_entry(t, "offset", std::to_string(offset));
    add_entry(t, "length", std::to_string(length));
    t.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
    t.clear_raw_data();
    offset += length;
  }
  finish_write(data, data_path);
  return offset;
}

}  // namespace

SavedFiles save_model(onnx::ModelProto& model, const std::filesystem::path& path, bool external_data) {
  SavedFiles saved;
  if (external_data) {
    saved.data_path = path;
    saved.data_path += ".data";
    saved.data_bytes = move_weights_out(model, saved.data_path);
  }
  const std::size_t size = model.ByteSizeLong();
  if (size > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw UserError("the model would be " + std::to_string(size >> 20) +
                    " MiB, over protobuf's 2 GiB limit: add --external-data");
  std::ofstream out = open_for_write(path);
  if (!model.SerializeToOstream(&out)) throw UserError("serialising the model to '" + path.string() + "' failed");
  finish_write(out, path);
  saved.model_bytes = size;
  return saved;
}

}  // namespace rooflens::zoo
