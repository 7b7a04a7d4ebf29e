// User shape overrides (--shape, --dim, --batch) applied to the main graph's inputs, and the error that
// lists every dim still unresolved with the flag that would fix it.
#include <charconv>
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

void apply_overrides(onnx::GraphProto& g, const ShapeOverrides& o, const std::string& file,
                     std::vector<std::string>& notes, std::map<std::string, int64_t>& symbols,
                     int64_t& batch_dims) {
  std::unordered_set<std::string> initializers;
  for (const auto& t : g.initializer()) initializers.insert(t.name());
  std::set<std::string> used_shapes, used_dims;
  std::vector<std::string> missing;
  std::map<std::string, std::string> by_symbol;  // one entry per symbolic dim, listing where it is used
  bool batch_defaulted = false;
  for (auto& in : *g.mutable_input()) {
    if (initializers.count(in.name()) || !in.type().has_tensor_type()) continue;
    auto* tt = in.mutable_type()->mutable_tensor_type();
    if (auto it = o.shapes.find(in.name()); it != o.shapes.end()) {
      used_shapes.insert(it->first);
      auto* shape = tt->mutable_shape();
      shape->clear_dim();
      for (size_t i = 0; i < it->second.size(); ++i) {
        check_dim(it->second[i], file, in.name(), i);
        shape->add_dim()->set_dim_value(it->second[i]);
      }
      continue;
    }
    if (!tt->has_shape()) {
      missing.push_back("'" + in.name() + "' (no shape declared): --shape " + in.name() + ":DxD...");
      continue;
    }
    for (int i = 0; i < tt->shape().dim_size(); ++i) {
      auto* d = tt->mutable_shape()->mutable_dim(i);
      if (d->has_dim_value() && d->dim_value() >= 0) {
        check_dim(d->dim_value(), file, in.name(), i);
        continue;
      }
      std::string sym = d->has_dim_param() ? d->dim_param() : "";
      if (auto it = o.dims.find(sym); !sym.empty() && it != o.dims.end()) {
        used_dims.insert(sym);
        check_dim(it->second, file, in.name(), i);
        symbols[sym] = it->second;
        d->set_dim_value(it->second);
      } else if (i == 0) {
        // Leading dynamic dim is the batch by convention (as in trtexec and PRoof).
        batch_defaulted |= !o.batch.has_value();
        check_dim(o.batch.value_or(1), file, in.name(), 0);
        if (!sym.empty()) symbols[sym] = o.batch.value_or(1);
        ++batch_dims;
        d->set_dim_value(o.batch.value_or(1));
      } else if (sym.empty()) {
        missing.push_back("'" + in.name() + "' dim " + std::to_string(i) + ": --shape " + in.name() + ":...");
      } else {
        auto& uses = by_symbol[sym];
        uses += (uses.empty() ? "" : ", ") + ("'" + in.name() + "' dim " + std::to_string(i));
      }
    }
  }
  for (const auto& [name, _] : o.shapes)
    if (!used_shapes.count(name)) throw UsageError("--shape names '" + name + "', which is not an input of " + file);
  for (const auto& [sym, uses] : by_symbol) missing.push_back("'" + sym + "' (" + uses + "): --dim " + sym + "=N");
  if (!missing.empty()) {
    std::string msg = file + ": unresolved input dims — give a value for ";
    for (size_t i = 0; i < missing.size(); ++i) msg += (i ? "; " : "") + missing[i];
    throw UserError(msg);
  }
  if (batch_defaulted) notes.push_back("batch defaulted to 1 for dynamic leading dims (use --batch N)");
  else if (o.batch) notes.push_back("batch set to " + std::to_string(*o.batch));
}

}  // namespace rooflens
