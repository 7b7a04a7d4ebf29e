#include "backends/opencv/opencv_layers.h"

#include <algorithm>
#include <map>
#include <optional>

namespace rooflens::opencv {
namespace {

using json = nlohmann::json;

struct RawLayer {
  std::string name, type;
  std::vector<std::string> inputs;
  std::vector<double> times_ms;
  bool ran() const {
    return std::any_of(times_ms.begin(), times_ms.end(), [](double t) { return t > 0; });
  }
};

// The user's node an OpenCV layer name stands for: "onnx_node!X" is node X; a helper layer "onnx_node!X/suffix"
// belongs to X; a tensor name (an unnamed node's "onnx_node_output_0!y", a graph output's Identity) stands for the
// tensor's producer.
class NodeNames {
 public:
  explicit NodeNames(const GraphView& g) {
    for (const auto& n : g.nodes) {
      nodes_.emplace(n.name, n.name);
      for (const auto& t : n.outputs)
        if (!t.empty()) producers_.emplace(t, n.name);
    }
  }

  std::optional<std::string> node_of(std::string name) const {
    // "onnx_node!<node>" for named nodes, "onnx_node_output_<i>!<tensor>" for unnamed ones.
    if (name.rfind("onnx_node", 0) == 0 && name.find('!') != std::string::npos) name = name.substr(name.find('!') + 1);
    for (;;) {
      if (auto n = nodes_.find(name); n != nodes_.end()) return n->second;
      if (auto p = producers_.find(name); p != producers_.end()) return p->second;
      size_t slash = name.rfind('/');
      if (slash == std::string::npos || slash == 0) return std::nullopt;
      name = name.substr(0, slash);
    }
  }

 private:
  std::map<std::string, std::string> nodes_, producers_;
};

std::vector<RawLayer> parse(const json& layers) {
  std::vector<RawLayer> out;
  for (const auto& l : layers) {
    RawLayer r;
    l.at("name").get_to(r.name);
    l.at("type").get_to(r.type);
    l.at("inputs").get_to(r.inputs);
    l.at("times_ms").get_to(r.times_ms);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

std::vector<KernelRecord> kernels_from_layers(const json& layers, const GraphView& model,
                                              std::vector<std::string>& warnings) {
  const std::vector<RawLayer> raw = parse(layers);
  const NodeNames names(model);
  std::map<std::string, size_t> kernel_of;  // layer name -> the kernel that computes it (fused layers included)
  std::vector<KernelRecord> kernels;
  std::vector<std::string> unmapped;
  for (const RawLayer& l : raw) {
    std::optional<size_t> owner;
    if (!l.ran()) {
      // Fused into the nearest input that ran (or was itself absorbed): OpenCV fuses forward, into the producer.
      for (auto in = l.inputs.rbegin(); in != l.inputs.rend() && !owner; ++in)
        if (auto k = kernel_of.find(*in); k != kernel_of.end()) owner = k->second;
    }
    if (!owner) {
      KernelRecord k;
      k.name = l.name;
      k.op = l.type;
      k.device = "cpu";
      k.device_class = Device::cpu;  // this backend runs OpenCV's CPU implementation only
      // OpenCV's Permute layer is the ONNX Transpose (a layout change for lint); its other layers compute.
      k.kind = l.type == "Permute" ? LayerKind::layout : LayerKind::compute;
      k.per_iteration_ms = l.times_ms;
      owner = kernels.size();
      kernels.push_back(std::move(k));
    }
    kernel_of[l.name] = *owner;
    if (auto node = names.node_of(l.name)) kernels[*owner].onnx_nodes.push_back(*node);
    else if (*owner + 1 == kernels.size() && kernels[*owner].onnx_nodes.empty()) unmapped.push_back(l.name);
  }
  // Start of each kernel in the first measured iteration, OpenCV running its layers one after another.
  double at = 0;
  for (auto& k : kernels) {
    k.start_ms = at;
    if (!k.per_iteration_ms.empty()) at += k.per_iteration_ms.front();
  }
  if (!unmapped.empty())
    warnings.push_back(std::to_string(unmapped.size()) + " OpenCV layer(s) name no ONNX node (first: '" + unmapped.front() +
                       "')");
  return kernels;
}

}  // namespace rooflens::opencv
