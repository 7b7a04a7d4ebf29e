#include "model/skeleton.h"

#include "model/wire.h"

namespace rooflens {
namespace {

// Field numbers from onnx.proto (facts of the format).
namespace model_f { constexpr uint32_t graph = 7; }
namespace graph_f { constexpr uint32_t node = 1, initializer = 5; }
namespace node_f { constexpr uint32_t attribute = 5; }
namespace attr_f { constexpr uint32_t t = 5, g = 6, tensors = 10, graphs = 11; }
namespace tensor_f {
constexpr uint32_t name = 8;
// float_data, int32_data, string_data, int64_data, raw_data, double_data, uint64_data
constexpr bool is_data(uint32_t n) { return (n >= 4 && n <= 7) || (n >= 9 && n <= 11); }
}  // namespace tensor_f

// Protobuf itself refuses nesting deeper than 100; we stop earlier with a clear message.
constexpr int kMaxDepth = 64;

class SkeletonWriter {
 public:
  SkeletonWriter(const uint8_t* base, size_t size) : base_(base), size_(size) {}

  Skeleton run() {
    Skeleton s;
    s.bytes = model(base_, base_ + size_);
    s.payloads = std::move(payloads_);
    return s;
  }

 private:
  WireReader reader(const uint8_t* b, const uint8_t* e) const { return WireReader(b, e, base_); }
  static void copy(std::string& out, const WireField& f) {
    out.append(reinterpret_cast<const char*>(f.begin), f.end - f.begin);
  }
  void enter(const uint8_t* at) {
    if (++depth_ > kMaxDepth)
      throw WireError("message nesting deeper than " + std::to_string(kMaxDepth), at - base_);
  }

  std::string model(const uint8_t* b, const uint8_t* e) {
    std::string out;
    auto r = reader(b, e);
    while (!r.done()) {
      WireField f = r.next();
      if (f.number == model_f::graph && f.type == WireType::Len)
        put_len_field(out, f.number, graph(f.payload, f.payload + f.length));
      else
        copy(out, f);
    }
    return out;
  }

  std::string graph(const uint8_t* b, const uint8_t* e) {
    enter(b);
    std::string out;
    auto r = reader(b, e);
    while (!r.done()) {
      WireField f = r.next();
      if (f.type != WireType::Len) copy(out, f);
      else if (f.number == graph_f::initializer) put_len_field(out, f.number, tensor(f.payload, f.payload + f.length));
      else if (f.number == graph_f::node) put_len_field(out, f.number, node(f.payload, f.payload + f.length));
      else copy(out, f);
    }
    --depth_;
    return out;
  }

  std::string node(const uint8_t* b, const uint8_t* e) {
    std::string out;
    auto r = reader(b, e);
    while (!r.done()) {
      WireField f = r.next();
      if (f.number == node_f::attribute && f.type == WireType::Len)
        put_len_field(out, f.number, attribute(f.payload, f.payload + f.length));
      else
        copy(out, f);
    }
    return out;
  }

  std::string attribute(const uint8_t* b, const uint8_t* e) {
    std::string out;
    auto r = reader(b, e);
    while (!r.done()) {
      WireField f = r.next();
      if (f.type != WireType::Len) copy(out, f);
      else if (f.number == attr_f::t || f.number == attr_f::tensors)
        put_len_field(out, f.number, tensor(f.payload, f.payload + f.length));
      else if (f.number == attr_f::g || f.number == attr_f::graphs)
        put_len_field(out, f.number, graph(f.payload, f.payload + f.length));
      else copy(out, f);
    }
    return out;
  }

  // Keeps a tensor's metadata; drops its data fields when they are large, remembering where they were.
  std::string tensor(const uint8_t* b, const uint8_t* e) {
    uint64_t data_bytes = 0;
    uint64_t first = 0;
    std::string name;
    {
      auto r = reader(b, e);
      while (!r.done()) {
        WireField f = r.next();
        if (tensor_f::is_data(f.number)) {
          if (data_bytes == 0) first = static_cast<uint64_t>((f.payload ? f.payload : f.begin) - base_);
          data_bytes += f.type == WireType::Len ? f.length : static_cast<uint64_t>(f.end - f.begin);
        } else if (f.number == tensor_f::name && f.type == WireType::Len) {
          name.assign(reinterpret_cast<const char*>(f.payload), f.length);
        }
      }
    }
    if (data_bytes <= kEagerPayloadLimit) return std::string(reinterpret_cast<const char*>(b), e - b);
    std::string out;
    auto r = reader(b, e);
    while (!r.done()) {
      WireField f = r.next();
      if (!tensor_f::is_data(f.number)) copy(out, f);
    }
    payloads_.push_back(PayloadSpan{std::move(name), first, data_bytes});
    return out;
  }

  const uint8_t* base_;
  size_t size_;
  int depth_ = 0;
  std::vector<PayloadSpan> payloads_;
};

}  // namespace

Skeleton build_skeleton(const uint8_t* data, size_t size) { return SkeletonWriter(data, size).run(); }

}  // namespace rooflens
