#include "model/expose_outputs.h"

#include <fstream>

#include "core/errors.h"
#include "model/mapped_file.h"
#include "model/wire.h"

namespace rooflens {
namespace {

// Field numbers from onnx.proto (facts of the format).
constexpr uint32_t kModelGraph = 7;       // ModelProto.graph
constexpr uint32_t kGraphOutput = 12;     // GraphProto.output
constexpr uint32_t kValueInfoName = 1;    // ValueInfoProto.name

// A ValueInfoProto with only a name: the runtime takes the type from the graph (protobuf concatenates repeated
// fields, so entries appended after the existing ones simply extend the list).
std::string outputs_of(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    std::string vi;
    put_len_field(vi, kValueInfoName, n);
    put_len_field(out, kGraphOutput, vi);
  }
  return out;
}

}  // namespace

void write_with_outputs(const std::filesystem::path& model, const std::vector<std::string>& names,
                        const std::filesystem::path& out) {
  MappedFile file(model.string());
  const uint8_t* base = file.data();
  const std::string extra = outputs_of(names);
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  if (!f) throw UserError(out.string() + ": cannot write the model copy");
  bool found = false;
  try {
    WireReader r(base, base + file.size(), base);
    while (!r.done()) {
      WireField field = r.next();
      if (field.number == kModelGraph && field.type == WireType::Len && !found) {
        found = true;
        std::string head;
        put_varint(head, (uint64_t{kModelGraph} << 3) | 2);
        put_varint(head, field.length + extra.size());
        f.write(head.data(), static_cast<std::streamsize>(head.size()));
        f.write(reinterpret_cast<const char*>(field.payload), static_cast<std::streamsize>(field.length));
        f.write(extra.data(), static_cast<std::streamsize>(extra.size()));
      } else {
        f.write(reinterpret_cast<const char*>(field.begin), static_cast<std::streamsize>(field.end - field.begin));
      }
    }
  } catch (const WireError& e) {
    throw UserError(model.string() + ": not a valid ONNX model (" + e.what() + ")");
  }
  if (!found) throw UserError(model.string() + ": the model has no graph");
  if (!f.flush()) throw UserError(out.string() + ": cannot write the model copy (disk full?)");
}

}  // namespace rooflens
