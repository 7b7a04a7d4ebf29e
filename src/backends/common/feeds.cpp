#include "backends/common/feeds.h"

#include <cmath>
#include <cstring>

#include "core/saturating.h"
#include "model/loader.h"
#include "validation/tensor_file.h"

namespace rooflens {
namespace {

BackendError input_error(const std::string& message) { return BackendError("run", "error", message, "", "input"); }

uint32_t fnv1a(const std::string& s) {
  uint32_t h = 0x811c9dc5u;
  for (unsigned char c : s) {
    h ^= c;  // JavaScript's charCodeAt: the same for ASCII names, which is what models use
    h *= 0x01000193u;
  }
  return h;
}

// mulberry32, returning what JavaScript's version returns: a double in [0, 1) with 32 random bits.
class Mulberry32 {
 public:
  explicit Mulberry32(uint32_t seed) : a_(seed) {}
  double next() {
    a_ += 0x6d2b79f5u;
    uint32_t t = (a_ ^ (a_ >> 15)) * (1u | a_);
    t = (t + ((t ^ (t >> 7)) * (61u | t))) ^ t;
    return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
  }

 private:
  uint32_t a_;
};

template <class T>
void put_feed(std::string& bytes, size_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

struct IntRange {
  double min, max;  // inclusive, as doubles (JavaScript numbers)
};
std::optional<IntRange> int_range(int32_t t) {
  switch (t) {
    case 3: return IntRange{-128, 127};
    case 2: return IntRange{0, 255};
    case 5: return IntRange{-32768, 32767};
    case 4: return IntRange{0, 65535};
    case 6: return IntRange{-2147483648.0, 2147483647.0};
    case 12: return IntRange{0, 4294967295.0};
    case 7: return IntRange{-9007199254740991.0, 9007199254740991.0};
    case 13: return IntRange{0, 9007199254740991.0};
    default: return std::nullopt;
  }
}

void put_int(std::string& bytes, size_t i, int32_t t, int64_t v) {
  switch (t) {
    case 3: return put_feed<int8_t>(bytes, i, static_cast<int8_t>(v));
    case 2: return put_feed<uint8_t>(bytes, i, static_cast<uint8_t>(v));
    case 5: return put_feed<int16_t>(bytes, i, static_cast<int16_t>(v));
    case 4: return put_feed<uint16_t>(bytes, i, static_cast<uint16_t>(v));
    case 6: return put_feed<int32_t>(bytes, i, static_cast<int32_t>(v));
    case 12: return put_feed<uint32_t>(bytes, i, static_cast<uint32_t>(v));
    case 7: return put_feed<int64_t>(bytes, i, v);
    default: return put_feed<uint64_t>(bytes, i, static_cast<uint64_t>(v));
  }
}

}  // namespace

TensorValue generate_tensor(const std::string& name, int32_t t, const std::vector<int64_t>& dims, uint64_t seed,
                            std::optional<int64_t> max) {
  uint64_t count = 1;
  for (int64_t d : dims) count = sat_mul(count, static_cast<uint64_t>(d < 0 ? 0 : d));
  if (count > (uint64_t{1} << 31)) throw input_error("input '" + name + "': too large to generate");
  const uint32_t s = fnv1a(name) ^ static_cast<uint32_t>(seed) ^ static_cast<uint32_t>(seed >> 32);
  Mulberry32 r(s);
  TensorValue v;
  v.name = name;
  v.data_type = t;
  v.dims = dims;
  const int size = onnx_type_size(t);
  v.bytes.assign(count * static_cast<uint64_t>(size > 0 ? size : 0), '\0');
  if (t == 1 || t == 11) {  // floats in [-1, 1), computed in double as JavaScript does, then stored
    for (uint64_t i = 0; i < count; ++i) {
      double x = -1 + 2 * r.next();
      if (t == 1) put_feed<float>(v.bytes, i, static_cast<float>(x));
      else put_feed<double>(v.bytes, i, x);
    }
    return v;
  }
  if (t == 9) {
    for (uint64_t i = 0; i < count; ++i) put_feed<uint8_t>(v.bytes, i, r.next() < 0.5 ? 1 : 0);
    return v;
  }
  auto range = int_range(t);
  if (!range) throw input_error("input '" + name + "': cannot generate values of type " + onnx_type_name(t) +
                                "; give a file (--input " + name + "=FILE)");
  const double lo = 0, hi = static_cast<double>(max.value_or(100));
  if (hi <= lo || hi - 1 > range->max) throw input_error("input '" + name + "': integer range does not fit " + onnx_type_name(t));
  const double span = hi - lo;
  for (uint64_t i = 0; i < count; ++i) {
    double u = r.next();
    if (span > 4294967296.0) u = (std::floor(u * 2097152) * 4294967296.0 + std::floor(r.next() * 4294967296.0)) /
                                 9007199254740992.0;
    put_int(v.bytes, i, t, static_cast<int64_t>(lo + std::floor(u * span)));
  }
  return v;
}

ModelIo model_io(const std::string& path, const std::map<std::string, int64_t>& dims,
                 const std::map<std::string, std::vector<int64_t>>& shapes) {
  ShapeOverrides o;
  o.dims = dims;
  o.shapes = shapes;
  Model m = load_model(path, o);
  ModelIo io;
  io.outputs = m.graphs.at(0).outputs;
  std::vector<InputDesc>& out = io.inputs;
  for (const auto& name : m.graphs.at(0).inputs) {
    const TensorInfo* t = m.graphs[0].find(name);
    InputDesc d;
    d.name = name;
    if (t) {
      d.data_type = static_cast<int32_t>(t->dtype);
      for (const auto& dim : t->dims) {
        d.dims.push_back(dim.known() && dim.symbol.empty() ? dim.value : -1);
        d.symbols.push_back(dim.symbol);
      }
    }
    out.push_back(std::move(d));
  }
  return io;
}

std::vector<TensorValue> build_feeds(const std::vector<InputDesc>& inputs, const FeedSpec& feed) {
  std::vector<std::optional<TensorValue>> from_dir(inputs.size());
  if (feed.test_data_dir) {
    auto files = numbered_tensor_files(*feed.test_data_dir, "input_");
    for (size_t i = 0; i < files.size(); ++i) {
      TensorValue t = read_tensor_proto_file(files[i]);
      size_t at = i;
      for (size_t k = 0; k < inputs.size(); ++k)
        if (inputs[k].name == t.name) at = k;
      if (at < inputs.size()) from_dir[at] = std::move(t);
    }
  }
  std::vector<TensorValue> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const InputDesc& in = inputs[i];
    TensorValue t;
    if (auto f = feed.files.find(in.name); f != feed.files.end()) t = read_tensor_proto_file(f->second);
    else if (from_dir[i]) t = std::move(*from_dir[i]);
    else {
      std::vector<int64_t> dims = in.dims;
      if (auto s = feed.shapes.find(in.name); s != feed.shapes.end()) dims = s->second;
      for (size_t k = 0; k < dims.size() && k < in.symbols.size(); ++k) {
        if (dims[k] >= 0 || in.symbols[k].empty()) continue;
        auto d = feed.dims.find(in.symbols[k]);
        if (d == feed.dims.end())
          throw input_error("input '" + in.name + "' dim " + std::to_string(k) + " is symbolic ('" + in.symbols[k] +
                            "'): give --dim " + in.symbols[k] + "=N");
        dims[k] = d->second;
      }
      for (int64_t d : dims)
        if (d < 0) throw input_error("input '" + in.name + "' has a dim of unknown size: give its --shape");
      auto max = feed.int_input_max.find(in.name);
      t = generate_tensor(in.name, in.data_type, dims, feed.seed,
                          max == feed.int_input_max.end() ? std::nullopt : std::optional<int64_t>(max->second));
    }
    t.name = in.name;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace rooflens
