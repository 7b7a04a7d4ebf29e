// User shape overrides (--shape, --dim, --batch) applied to the main graph's inputs, and the error that
// lists every dim still unresolved with the flag that would fix it.
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <unordered_set>

#include <onnx/onnx_pb.h>

#include "core/errors.h"
#include "model/proto_shapes.h"

namespace rooflens {
namespace {

// Dims beyond this are refused: no real tensor has 2^32 entries along one axis, and accepting them would
// only push overflow further down the analysis.
constexpr int64_t kMaxDim = int64_t{1} << 32;
// Integers up to 2^53 are exact in a double, the type --value values travel in.
constexpr double kMaxExactInteger = 9007199254740992.0;

int64_t parse_int(const std::string& s, const std::string& what) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0)
    throw UsageError("bad " + what + " '" + s + "': expected a non-negative integer");
  return v;
}

void check_dim(int64_t v, const std::string& file, const std::string& input, size_t axis) {
  if (v > kMaxDim)
    throw UserError(file + ": input '" + input + "' dim " + std::to_string(axis) + " = " + std::to_string(v) +
                    " exceeds the supported maximum 2^32; give a realistic value with --shape " + input +
                    ":... or --dim");
}

}  // namespace

std::pair<std::string, std::vector<int64_t>> parse_shape_override(const std::string& text) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw UsageError("--shape expects NAME:DxDxD (e.g. input:1x3x224x224), got '" + text + "'");
  std::string name = text.substr(0, colon), dims = text.substr(colon + 1);
  std::vector<int64_t> out;
  size_t start = 0;
  while (true) {
    size_t x = dims.find_first_of("x,", start);
    out.push_back(parse_int(dims.substr(start, x - start), "dim in --shape " + text));
    if (x == std::string::npos) break;
    start = x + 1;
  }
  return {name, out};
}

std::pair<std::string, int64_t> parse_dim_override(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError("--dim expects NAME=VALUE (e.g. batch=8), got '" + text + "'");
  return {text.substr(0, eq), parse_int(text.substr(eq + 1), "value in --dim " + text)};
}

std::pair<std::string, std::vector<double>> parse_value_override(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError("--value expects NAME=V[,V...] (e.g. sr=16000), got '" + text + "'");
  std::vector<double> values;
  const std::string list = text.substr(eq + 1);
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    const std::string item = list.substr(start, comma - start);
    double v = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || p != item.data() + item.size() || !std::isfinite(v))
      throw UsageError("bad number '" + item + "' in --value " + text);
    if (std::fabs(v) > kMaxExactInteger && v == std::floor(v))
      throw UsageError("--value " + text + ": " + item + " is beyond 2^53, where values stop being exact");
    values.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (values.size() > 4096) throw UsageError("--value " + text + ": at most 4096 values");
  return {text.substr(0, eq), values};
}

namespace {

using Dims = google::protobuf::RepeatedPtrField<onnx::TensorShapeProto_Dimension>;

// The shape a --value gives its input: a scalar for a rank-0 input, [n] for rank 1 (binding a symbolic dim to n),
// otherwise the declared dims, which must hold exactly n elements.
void shape_from_value(onnx::ValueInfoProto& in, const std::vector<double>& values, const std::string& file,
                      std::map<std::string, int64_t>& bound) {
  auto* tt = in.mutable_type()->mutable_tensor_type();
  const auto n = static_cast<int64_t>(values.size());
  const std::string what = "--value " + in.name() + " (" + std::to_string(n) + " value" + (n == 1 ? "" : "s") + ")";
  if (!tt->has_shape()) {
    auto* shape = tt->mutable_shape();
    if (n != 1) shape->add_dim()->set_dim_value(n);
    return;
  }
  auto* dims = tt->mutable_shape()->mutable_dim();
  if (dims->size() == 0) {
    if (n != 1) throw UserError(file + ": input '" + in.name() + "' is a scalar; " + what + " gives more than one");
    return;
  }
  if (dims->size() == 1) {
    auto& d = (*dims)[0];
    if (d.has_dim_value() && d.dim_value() != n)
      throw UserError(file + ": input '" + in.name() + "' holds " + std::to_string(d.dim_value()) + " values; " + what);
    if (d.has_dim_param()) bound.emplace(d.dim_param(), n);
    d.set_dim_value(n);
    return;
  }
  int64_t count = 1;
  for (const auto& d : *dims) {
    if (!d.has_dim_value())
      throw UserError(file + ": input '" + in.name() + "' has rank " + std::to_string(dims->size()) +
                      " with dynamic dims; give its shape with --shape " + in.name() + ":... next to " + what);
    count *= d.dim_value();
  }
  if (count != n)
    throw UserError(file + ": input '" + in.name() + "' holds " + std::to_string(count) + " values; " + what);
}

}  // namespace

// One value per dim symbol, across every input: from --dim first, then the dims of inputs given with --shape or
// --value, then the batch (--batch or its default 1) for every symbol that is some input's leading dim. The
// symbol then takes that value wherever it appears (Silero VAD's `batch` is dim 0 of `input` and dim 1 of `h`).
void apply_overrides(onnx::GraphProto& g, const ShapeOverrides& o, const std::string& file,
                     std::vector<std::string>& notes, std::map<std::string, int64_t>& symbols,
                     int64_t& batch_dims) {
  std::unordered_set<std::string> initializers;
  for (const auto& t : g.initializer()) initializers.insert(t.name());
  std::vector<onnx::ValueInfoProto*> inputs;
  for (auto& in : *g.mutable_input())
    if (!initializers.count(in.name()) && in.type().has_tensor_type()) inputs.push_back(&in);
  auto find_input = [&](const std::string& name) -> onnx::ValueInfoProto* {
    for (auto* in : inputs)
      if (in->name() == name) return in;
    return nullptr;
  };
  for (const auto& [name, _] : o.shapes)
    if (!find_input(name)) throw UsageError("--shape names '" + name + "', which is not an input of " + file);
  for (const auto& [name, _] : o.values)
    if (!find_input(name)) throw UsageError("--value names '" + name + "', which is not an input of " + file);

  std::map<std::string, int64_t> bound(o.dims.begin(), o.dims.end());
  for (const auto& [sym, v] : o.dims) symbols[sym] = v;
  // --shape replaces an input's dims; the symbols it declared there take those sizes unless --dim set them.
  for (const auto& [name, dims] : o.shapes) {
    auto* tt = find_input(name)->mutable_type()->mutable_tensor_type();
    if (tt->has_shape() && tt->shape().dim_size() == static_cast<int>(dims.size()))
      for (size_t i = 0; i < dims.size(); ++i)
        if (tt->shape().dim(static_cast<int>(i)).has_dim_param()) bound.emplace(tt->shape().dim(static_cast<int>(i)).dim_param(), dims[i]);
    auto* shape = tt->mutable_shape();
    shape->clear_dim();
    for (size_t i = 0; i < dims.size(); ++i) {
      check_dim(dims[i], file, name, i);
      shape->add_dim()->set_dim_value(dims[i]);
    }
  }
  for (const auto& [name, values] : o.values)
    if (!o.shapes.count(name)) shape_from_value(*find_input(name), values, file, bound);
  // The batch: every symbol that is an input's leading dim, unless already bound.
  bool batch_defaulted = false;
  for (auto* in : inputs) {
    const auto& shape = in->type().tensor_type().shape();
    if (!in->type().tensor_type().has_shape() || shape.dim_size() == 0 || o.shapes.count(in->name())) continue;
    const auto& d0 = shape.dim(0);
    if (d0.has_dim_value() && d0.dim_value() >= 0) continue;
    if (!d0.has_dim_param() || !bound.count(d0.dim_param())) {
      batch_defaulted |= !o.batch.has_value();
      ++batch_dims;
    }
    if (d0.has_dim_param()) bound.emplace(d0.dim_param(), o.batch.value_or(1));
  }
  // Apply: every dim of every input takes its symbol's value; an unnamed leading dim takes the batch.
  std::vector<std::string> missing;
  // One entry per symbolic dim: where it is used (the first two places, then a count, so a decoder's 60 past inputs
  // keep the message to one readable line).
  struct Uses {
    std::string text;
    int count = 0;
  };
  std::map<std::string, Uses> by_symbol;
  for (auto* in : inputs) {
    auto* tt = in->mutable_type()->mutable_tensor_type();
    if (!tt->has_shape()) {
      missing.push_back("'" + in->name() + "' (no shape declared): --shape " + in->name() + ":DxD...");
      continue;
    }
    for (int i = 0; i < tt->shape().dim_size(); ++i) {
      auto* d = tt->mutable_shape()->mutable_dim(i);
      if (d->has_dim_value() && d->dim_value() >= 0) {
        check_dim(d->dim_value(), file, in->name(), static_cast<size_t>(i));
        continue;
      }
      const std::string sym = d->has_dim_param() ? d->dim_param() : "";
      if (auto it = bound.find(sym); !sym.empty() && it != bound.end()) {
        check_dim(it->second, file, in->name(), static_cast<size_t>(i));
        symbols[sym] = it->second;
        d->set_dim_value(it->second);
      } else if (i == 0) {
        check_dim(o.batch.value_or(1), file, in->name(), 0);
        d->set_dim_value(o.batch.value_or(1));
      } else if (sym.empty()) {
        missing.push_back("'" + in->name() + "' dim " + std::to_string(i) + ": --shape " + in->name() + ":...");
      } else {
        Uses& uses = by_symbol[sym];
        if (uses.count++ < 2) uses.text += (uses.text.empty() ? "" : ", ") + ("'" + in->name() + "' dim " + std::to_string(i));
      }
    }
  }
  for (const auto& [sym, uses] : by_symbol) {
    const std::string more = uses.count > 2 ? " and " + std::to_string(uses.count - 2) + " more" : "";
    missing.push_back("'" + sym + "' (" + uses.text + more + "): --dim " + sym + "=N");
  }
  if (!missing.empty()) {
    std::string msg = file + ": unresolved input dims — give a value for ";
    for (size_t i = 0; i < missing.size(); ++i) msg += (i ? "; " : "") + missing[i];
    throw UserError(msg);
  }
  if (batch_defaulted) notes.push_back("batch defaulted to 1 for dynamic leading dims (use --batch N)");
  else if (o.batch) notes.push_back("batch set to " + std::to_string(*o.batch));
}

}  // namespace rooflens
