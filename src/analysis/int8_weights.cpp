#include "analysis/int8_weights.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/mapped_file.h"
#include "model/wire.h"

namespace rooflens {
namespace {

// TensorProto's fields this reads (onnx.proto).
namespace int8_tensor_field {
constexpr uint32_t data_type = 2, float_data = 4, int32_data = 5, name = 8, raw_data = 9, data_location = 14;
}

// Where integer matmul ops take their int8 weights (ONNX and ONNX Runtime's contrib op definitions).
const std::map<std::string, std::vector<size_t>>& weight_inputs() {
  static const std::map<std::string, std::vector<size_t>> m = {
      {"QLinearConv", {3}},   {"QLinearMatMul", {3}},         {"QGemm", {3}},
      {"MatMulInteger", {1}}, {"ConvInteger", {1}},           {"DynamicQuantizeMatMul", {1}},
      {"QAttention", {1}},    {"MatMulIntegerToFloat", {1}},  {"DynamicQuantizeLSTM", {1, 2}}};
  return m;
}

bool is_float_matmul(const std::string& op) {
  return op == "Conv" || op == "ConvTranspose" || op == "MatMul" || op == "Gemm";
}

// Weight name -> read through a DequantizeLinear.
using WantedWeights = std::map<std::string, bool>;

WantedWeights wanted_weights(const Model& m) {
  WantedWeights wanted;
  if (m.graphs.empty()) return wanted;
  const Graph& g = m.graphs[0];
  auto int8_initializer = [&m](const std::string& name) {
    const Initializer* init = m.find_initializer(0, name);
    return init && init->dtype == DType::Int8 && init->elements > 0;
  };
  std::set<std::string> matmul_operands;
  for (const auto& n : g.nodes)
    if (is_float_matmul(n.op)) matmul_operands.insert(n.inputs.begin(), n.inputs.end());
  for (const auto& n : g.nodes) {
    if (n.op == "DequantizeLinear" && !n.inputs.empty() && !n.outputs.empty() &&
        matmul_operands.count(n.outputs[0]) && int8_initializer(n.inputs[0])) {
      wanted[n.inputs[0]] = true;
      continue;
    }
    auto w = weight_inputs().find(n.op);
    if (w == weight_inputs().end()) continue;
    for (size_t i : w->second)
      if (i < n.inputs.size() && int8_initializer(n.inputs[i])) wanted.emplace(n.inputs[i], false);
  }
  return wanted;
}

struct Int8Scan {
  Int8Weights w;
  std::set<std::string> read;

  void add(const std::string& name, bool through_dequantize, const int8_t* v, size_t n) {
    if (n == 0 || !read.insert(name).second) return;
    const auto [lo, hi] = std::minmax_element(v, v + n);
    w.min = w.tensors == 0 ? *lo : std::min<int64_t>(w.min, *lo);
    w.max = w.tensors == 0 ? *hi : std::max<int64_t>(w.max, *hi);
    ++w.tensors;
    w.elements += n;
    if (through_dequantize) ++w.through_dequantize;
  }
};

// Decodes packed varints (int32_data: an int8 value is a sign-extended int32).
std::vector<int8_t> packed_values(const uint8_t* p, const uint8_t* end) {
  std::vector<int8_t> out;
  while (p < end) {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (p >= end || shift > 63) throw WireError("truncated varint in int32_data", 0);
      v |= static_cast<uint64_t>(*p & 0x7f) << shift;
      if (!(*p++ & 0x80)) break;
    }
    out.push_back(static_cast<int8_t>(static_cast<int32_t>(v)));
  }
  return out;
}

// One initializer stored in the model file itself, as far as this file needs it: its int8 values (in the mapped
// file, or unpacked from int32_data), or a float tensor's first value.
struct StoredTensor {
  std::string name;
  uint64_t dtype = 0;
  const int8_t* raw = nullptr;       // raw_data in the mapping
  size_t raw_count = 0;
  std::vector<int8_t> unpacked;      // int32_data
  std::optional<float> first_float;

  const int8_t* int8_values() const { return raw ? raw : unpacked.data(); }
  size_t int8_count() const { return raw ? raw_count : unpacked.size(); }
};

StoredTensor stored_tensor(const uint8_t* b, const uint8_t* e, const uint8_t* base) {
  namespace f = int8_tensor_field;
  StoredTensor t;
  bool external = false;
  const uint8_t* raw = nullptr;
  size_t raw_bytes = 0;
  WireReader r(b, e, base);
  while (!r.done()) {
    const WireField x = r.next();
    if (x.number == f::name && x.type == WireType::Len) t.name.assign(reinterpret_cast<const char*>(x.payload), x.length);
    else if (x.number == f::data_type && x.type == WireType::Varint) t.dtype = x.varint;
    else if (x.number == f::data_location && x.type == WireType::Varint) external = x.varint == 1;
    else if (x.number == f::raw_data && x.type == WireType::Len) raw = x.payload, raw_bytes = x.length;
    else if (x.number == f::int32_data && x.type == WireType::Len) {
      const auto v = packed_values(x.payload, x.payload + x.length);
      t.unpacked.insert(t.unpacked.end(), v.begin(), v.end());
    } else if (x.number == f::int32_data && x.type == WireType::Varint) {
      t.unpacked.push_back(static_cast<int8_t>(static_cast<int32_t>(x.varint)));
    } else if (x.number == f::float_data && (x.type == WireType::Len ? x.length >= 4 : x.type == WireType::Fixed32) &&
               !t.first_float) {
      float v;
      std::memcpy(&v, x.payload, 4);
      t.first_float = v;
    }
  }
  if (external) {  // its bytes are in another file
    t.unpacked.clear();
    return t;
  }
  if (raw && t.dtype == static_cast<uint64_t>(DType::Int8)) {
    t.raw = reinterpret_cast<const int8_t*>(raw);
    t.raw_count = raw_bytes;
  }
  if (raw && t.dtype == static_cast<uint64_t>(DType::Float) && raw_bytes >= 4) {
    float v;
    std::memcpy(&v, raw, 4);
    t.first_float = v;
  }
  return t;
}

// Calls `visit` with every initializer of the main graph stored in the model file (ModelProto.graph.initializer).
template <class Visit>
void each_stored_initializer(const std::string& path, Visit visit) {
  constexpr uint32_t kModelGraph = 7, kGraphInitializer = 5;
  MappedFile file(path);
  const uint8_t* base = file.data();
  WireReader model(base, base + file.size(), base);
  while (!model.done()) {
    const WireField g = model.next();
    if (g.number != kModelGraph || g.type != WireType::Len) continue;
    WireReader graph(g.payload, g.payload + g.length, base);
    while (!graph.done()) {
      const WireField t = graph.next();
      if (t.number == kGraphInitializer && t.type == WireType::Len) visit(stored_tensor(t.payload, t.payload + t.length, base));
    }
  }
}

// Weights in external data files, where the loader found them.
void scan_external(const Model& m, const WantedWeights& wanted, Int8Scan& out) {
  for (const auto& [name, through_dequantize] : wanted) {
    const Initializer* init = m.find_initializer(0, name);
    if (!init || init->external_file.empty() || init->length != static_cast<uint64_t>(init->elements)) continue;
    std::ifstream in(init->external_file, std::ios::binary);
    std::vector<int8_t> v(init->length);
    in.seekg(static_cast<std::streamoff>(init->offset));
    if (in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size())))
      out.add(name, through_dequantize, v.data(), v.size());
  }
}

}  // namespace

std::optional<Int8Weights> int8_weights(const Model& model) {
  const WantedWeights wanted = wanted_weights(model);
  if (wanted.empty()) return std::nullopt;
  Int8Scan scan;
  try {
    each_stored_initializer(model.path, [&](const StoredTensor& t) {
      auto it = wanted.find(t.name);
      if (it != wanted.end() && t.dtype == static_cast<uint64_t>(DType::Int8))
        scan.add(t.name, it->second, t.int8_values(), t.int8_count());
    });
    scan_external(model, wanted, scan);
  } catch (const std::exception&) {  // the file changed since loading: the range cannot be told
    return std::nullopt;
  }
  // A range over some of the weights could call full-range weights reduced: all of them, or none.
  if (scan.read.size() != wanted.size()) return std::nullopt;
  return scan.w;
}

std::optional<double> output_quantization_step(const Model& model) {
  if (model.graphs.empty() || model.graphs[0].outputs.empty()) return std::nullopt;
  const Graph& g = model.graphs[0];
  std::map<std::string, std::string> scale_of;  // graph output -> the scale its DequantizeLinear reads
  for (const auto& n : g.nodes)
    if (n.op == "DequantizeLinear" && n.inputs.size() >= 2 && !n.outputs.empty()) scale_of[n.outputs[0]] = n.inputs[1];
  std::map<std::string, std::optional<float>> scales;
  for (const auto& out : g.outputs) {
    auto it = scale_of.find(out);
    const Initializer* init = it == scale_of.end() ? nullptr : model.find_initializer(0, it->second);
    if (!init || init->dtype != DType::Float || init->elements != 1) return std::nullopt;  // not a quantized output
    scales[it->second];
  }
  try {
    each_stored_initializer(model.path, [&](const StoredTensor& t) {
      if (auto it = scales.find(t.name); it != scales.end()) it->second = t.first_float;
    });
  } catch (const std::exception&) {
    return std::nullopt;
  }
  double step = 0;
  for (const auto& [name, v] : scales) {
    if (!v || !(*v > 0)) return std::nullopt;
    step = std::max(step, static_cast<double>(*v));
  }
  return step;
}

}  // namespace rooflens
