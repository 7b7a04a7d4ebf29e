// Placement: where kernels ran. In a run that uses a GPU (or NPU), compute layers left on the CPU and the
// device copies around them (a GPU provider's fallback: the provider had no kernel for those nodes).
#include "lint/rule.h"

namespace rooflens {
namespace {

constexpr double kErrorShare = 0.20;  // CPU + copy time at or above this share of the layer time: an error

void cpu_fallback(const RunFacts& f, FindingSink& out) {
  const auto& layers = f.run.layers;
  bool accelerated = false;
  for (const auto& l : layers) accelerated = accelerated || l.device == Device::gpu || l.device == Device::npu;
  if (!accelerated) return;
  std::vector<size_t> cpu, copies;
  for (size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].kind == LayerKind::copy) copies.push_back(i);
    else if (layers[i].device == Device::cpu && !layers[i].onnx_nodes.empty()) cpu.push_back(i);
  }
  if (cpu.empty() && copies.empty()) return;
  double cpu_ms = sum_ms(f.run, cpu), copy_ms = sum_ms(f.run, copies);
  double share = f.share_of(cpu_ms + copy_ms);
  Finding& x = out.add(share >= kErrorShare ? Severity::error : Severity::warning,
                       std::to_string(cpu.size()) + " layer(s) left on the CPU in an accelerated run (" +
                           pct(f.share_of(cpu_ms)) + " of layer time) and " + std::to_string(copies.size()) +
                           " device copies (" + pct(f.share_of(copy_ms)) + ")");
  std::vector<size_t> all = cpu;
  all.insert(all.end(), copies.begin(), copies.end());
  name_layers(x, f.run, all);
  x.evidence = {{"CPU layers", static_cast<double>(cpu.size()), "count"},
                {"CPU time share", f.share_of(cpu_ms), "ratio"},
                {"CPU time", cpu_ms, "ms"},
                {"copy layers", static_cast<double>(copies.size()), "count"},
                {"copy time share", f.share_of(copy_ms), "ratio"},
                {"copy time", copy_ms, "ms"}};
  x.mitigation =
      "Find out why the accelerator's provider did not take these nodes (an op, attribute or dtype it has no "
      "kernel for; ONNX Runtime's verbose log lists the node placement): change the op or dtype, or raise the "
      "opset to one the provider supports. Every CPU island costs a copy to and from the device; inputs and "
      "outputs bound on the device (I/O binding) remove the copies at the graph's edges.";
}

}  // namespace

void add_placement_rules(RuleList& rules) {
  rules.push_back({"cpu-fallback", "placement",
                   "compute layers left on the CPU in a GPU/NPU run, and the device copies they cause",
                   "https://onnxruntime.ai/docs/performance/tune-performance/troubleshooting.html", &cpu_fallback});
}

}  // namespace rooflens
