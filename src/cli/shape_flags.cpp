#include "cli/shape_flags.h"

#include "core/errors.h"

namespace rooflens::cli {

void ShapeFlags::add_to(CLI::App& app, bool with_batch) {
  app.add_option("--shape", shapes, "Input shape NAME:1x3x224x224 (repeatable)");
  app.add_option("--dim", dims, "Value of a symbolic dim, e.g. --dim seq=128 (repeatable)");
  app.add_option("--value", values,
                 "Contents of a scalar or small 1-D input that steers shapes or branches, e.g. --value sr=16000 "
                 "(repeatable; NAME=V,V,... for a list)");
  if (!with_batch) return;
  app.add_option("--batch", batch, "Leading dim of inputs whose dim 0 is dynamic (default 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 32));
}

ShapeOverrides ShapeFlags::overrides() const {
  ShapeOverrides o;
  for (const auto& s : shapes) o.shapes.insert(parse_shape_override(s));
  for (const auto& d : dims) o.dims.insert(parse_dim_override(d));
  for (const auto& v : values) {
    auto [name, list] = parse_value_override(v);
    if (!o.values.emplace(name, list).second) throw UsageError("--value " + name + " given twice");
  }
  if (batch > 0) o.batch = batch;
  return o;
}

}  // namespace rooflens::cli
