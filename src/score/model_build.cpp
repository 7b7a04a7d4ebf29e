// Building a workload's model from the zoo: the same seeded file on every machine.
#include <fmt/format.h>

#include "core/errors.h"
#include "score/kind.h"
#include "zoo/quantize.h"
#include "zoo/registry.h"
#include "zoo/save.h"

namespace rooflens::score {

std::filesystem::path build_model(const WorkloadDef& def, const std::filesystem::path& dir) {
  const zoo::ModelSpec& spec = zoo::find_model(def.model);
  zoo::ZooOptions o;
  o.seed = def.seed;
  if (def.image > 0) o.image = def.image;
  if (def.seq > 0) o.seq = def.seq;
  o.kv_cache = def.kind == "decoder";
  for (const auto& [k, v] : def.decoder) {
    if (k == "layers") o.decoder.layers = v;
    if (k == "hidden") o.decoder.hidden = v;
    if (k == "heads") o.decoder.heads = v;
    if (k == "kv_heads") o.decoder.kv_heads = v;
    if (k == "ffn") o.decoder.ffn = v;
    if (k == "vocab") o.decoder.vocab = v;
  }
  zoo::BuiltModel m = zoo::make_model(spec, o);
  if (def.precision == "int8") (void)zoo::quantize_qdq(m.model, zoo::QdqOptions{def.reduce_range});
  else if (def.precision != "fp32")
    throw UserError(fmt::format("score: workload '{}': precision {} is not built", def.id, def.precision));
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / (def.id + ".onnx");
  (void)zoo::save_model(m.model, path, false);
  return path;
}

}  // namespace rooflens::score
