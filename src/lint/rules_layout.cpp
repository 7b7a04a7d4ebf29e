// Layout: conversions the runtime inserted between kernels that want different memory layouts (NCHWc reorders,
// Transposes added by a layout transformer, TensorRT reformats). They compute nothing the model asked for.
#include "lint/rule.h"

namespace rooflens {
namespace {

constexpr double kInfoShare = 0.01;     // inserted layout layers below this share of layer time: not reported
constexpr double kWarningShare = 0.05;  // at or above: a warning

void layout_reorders(const RunFacts& f, FindingSink& out) {
  std::vector<size_t> hits;
  // Inserted: an alias of the node it serves (live runs, imports with the model) or, in an import without the
  // model, a layer the source itself says the runtime added. The user's own Transpose is neither. One at 0 ms (a
  // reformat TensorRT elided when it built the engine) costs nothing and is not named.
  for (size_t i = 0; i < f.run.layers.size(); ++i) {
    const Layer& l = f.run.layers[i];
    if (l.kind == LayerKind::layout && (l.alias || !l.inserted_for.empty()) && l.time_ms > 0) hits.push_back(i);
  }
  double ms = sum_ms(f.run, hits);
  double share = f.share_of(ms);
  if (hits.empty() || share < kInfoShare) return;
  uint64_t bytes = 0;
  for (size_t i : hits) bytes += f.run.layers[i].bytes;
  Finding& x = out.add(share >= kWarningShare ? Severity::warning : Severity::info,
                       std::to_string(hits.size()) + " inserted layout conversion(s) take " + pct(share) +
                           " of layer time (" + ms_text(ms) + ")");
  name_layers(x, f.run, hits);
  x.evidence = {{"layout layers", static_cast<double>(hits.size()), "count"},
                {"time share", share, "ratio"},
                {"time", ms, "ms"},
                {"bytes moved", static_cast<double>(bytes), "bytes"}};
  x.mitigation =
      "Each conversion reads and writes a whole tensor. They sit where a kernel that wants a blocked or "
      "channels-last layout meets one that does not (an op without such a kernel between two convolutions costs "
      "two conversions): replace or move that op, export the model in the layout the provider prefers, or keep "
      "layout-changing ops (Transpose, Reshape) out of convolution chains.";
}

}  // namespace

void add_layout_rules(RuleList& rules) {
  rules.push_back({"layout-reorders", "layout",
                   "layout conversions (reorders, Transposes) the runtime inserted, with their time share",
                   "https://onnxruntime.ai/docs/performance/model-optimizations/graph-optimizations.html",
                   &layout_reorders});
}

}  // namespace rooflens
