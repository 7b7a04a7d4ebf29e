#include "compare/why_slower.h"

#include <algorithm>

#include "core/units.h"

namespace rooflens {
namespace {

constexpr size_t kMostNamed = 3;  // fused groups and kernels named per item, the costliest first

std::string threads_cause(const CompareItem& base, const CompareItem& next) {
  if (!base.threads || !next.threads || next.threads >= base.threads) return "";
  std::string out = "NEW ran " + std::to_string(next.threads) + " intra-op thread(s) where BASE ran " +
                    std::to_string(base.threads);
  return out + (next.threads_note.empty() ? "" : ": " + next.threads_note);
}

std::string ceiling_cause(const CompareItem& base, const CompareItem& next) {
  if (base.compute_roof_gflops <= 0 || next.compute_roof_gflops <= 0) return "";
  const double share = next.compute_roof_gflops / base.compute_roof_gflops;
  if (share > 0.9) return "";
  return "NEW's layers meet a compute roof of " + fixed(next.compute_roof_gflops, 1) + " GFLOP/s (" +
         next.compute_roof + (next.roofs_engine.empty() ? "" : ", " + next.roofs_engine + "'s own") + "), BASE's " +
         fixed(base.compute_roof_gflops, 1) + " (" + base.compute_roof + "): a compute-bound layer can run at most " +
         fixed(100 * share, 0) + "% as fast";
}

void fusion_causes(const LayerComparison& l, std::vector<std::string>& out) {
  std::vector<const LayerGroupDelta*> split;
  for (const LayerGroupDelta& g : l.regrouped)
    if (g.new_layers.size() > g.base_layers.size() && g.delta_ms() > 0) split.push_back(&g);
  std::stable_sort(split.begin(), split.end(),
                   [](const LayerGroupDelta* a, const LayerGroupDelta* b) { return a->delta_ms() > b->delta_ms(); });
  for (size_t i = 0; i < split.size() && i < kMostNamed; ++i) {
    const LayerGroupDelta& g = *split[i];
    out.push_back(std::to_string(g.onnx_nodes.size()) + " ONNX node(s) BASE fused into " +
                  std::to_string(g.base_layers.size()) + " kernel(s) (" + g.base_layers.front() + ") run as " +
                  std::to_string(g.new_layers.size()) + " kernels in NEW: +" + fixed(g.delta_ms(), 3) + " ms");
  }
}

// Kernels the runtime inserted to change precision (Layer::inserted_for "precision": float16 nodes computed in float32,
// as a build without float16 arithmetic must, WebAssembly's among them): their count and time on one side.
struct PrecisionCasts {
  size_t kernels = 0;
  double ms = 0;
};
PrecisionCasts precision_casts(const CompareItem& side) {
  PrecisionCasts c;
  if (side.layers)
    for (const Layer& l : *side.layers)
      if (l.inserted_for == "precision") ++c.kernels, c.ms += l.time_ms;
  return c;
}

std::string precision_cause(const CompareItem& base, const CompareItem& next) {
  const PrecisionCasts b = precision_casts(base), n = precision_casts(next);
  if (n.kernels == 0 || n.ms <= b.ms) return "";
  return "NEW runs " + std::to_string(n.kernels) + " kernel(s) the runtime inserted to change precision (" +
         fixed(n.ms, 3) + " ms: float16 computed in float32, with casts around), BASE " + std::to_string(b.kernels) +
         " (" + fixed(b.ms, 3) + " ms)";
}

// NEW's runner took clearly more page faults a run than BASE's (8 = 32 KiB of fresh memory a run, and twice BASE's):
// ORT's Node binding copies every output into a new buffer, and whether those copies land on pages the process
// already holds is a state of the process that can last for many runs — not the model.
std::string page_fault_cause(const CompareItem& base, const CompareItem& next) {
  if (!base.page_faults_per_run || !next.page_faults_per_run) return "";
  const double b = *base.page_faults_per_run, n = *next.page_faults_per_run;
  if (n < 8 || n < 2 * b + 4) return "";
  return "NEW's runner took " + fixed(n, 1) + " page faults a run, BASE's " + fixed(b, 1) +
         ": its runs touched memory the process had not held (a runner's state that can last for many runs — the "
         "binding copies every output into a new buffer; docs/compare.md), not necessarily the model";
}

const Layer* named(const std::vector<Layer>& layers, const std::string& name) {
  for (const Layer& l : layers)
    if (l.name == name) return &l;
  return nullptr;
}

// Matched compute-bound layers whose NEW kernel sits at less than half the share of its ceiling BASE's kernel reaches
// of its own: the ceilings' ratio does not explain their slowdown.
void kernel_causes(const CompareItem& base, const CompareItem& next, const LayerComparison& l,
                   std::vector<std::string>& out) {
  if (!base.layers || !next.layers) return;
  size_t said = 0;
  for (const LayerDelta& d : l.matched) {  // largest |delta| first
    if (said == kMostNamed) break;
    if (d.delta_ms() <= 0) continue;
    const Layer* b = named(*base.layers, d.base_name.empty() ? d.name : d.base_name);
    const Layer* n = named(*next.layers, d.name);
    if (!b || !n || b->bound != "compute" || n->bound != "compute" || n->efficiency >= 0.5 * b->efficiency) continue;
    out.push_back(n->op + " " + n->name + ": NEW's kernel reaches " + fixed(100 * n->efficiency, 1) + "% of its roof (" +
                  n->roof + "), BASE's " + fixed(100 * b->efficiency, 1) + "% of its own (" + b->roof +
                  "): the kernel, not the ceiling, loses +" + fixed(d.delta_ms(), 3) + " ms");
    ++said;
  }
}

}  // namespace

std::vector<std::string> why_slower(const CompareItem& base, const CompareItem& next, const LayerComparison* layers) {
  std::vector<std::string> out;
  for (std::string s : {threads_cause(base, next), ceiling_cause(base, next), precision_cause(base, next),
                        page_fault_cause(base, next)})
    if (!s.empty()) out.push_back(std::move(s));
  if (layers) {
    fusion_causes(*layers, out);
    kernel_causes(base, next, *layers, out);
  }
  return out;
}

}  // namespace rooflens
