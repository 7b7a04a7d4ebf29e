#pragma once
// Layers of the same configuration in two profile reports, matched by ONNX node identity: a layer is the set of
// the user's nodes it computes, whatever the runtime named its kernel. When the runtime fuses differently the
// sets differ: layers of the two sides that share nodes are compared as groups (fusion changed), and what is
// left (layout aliases, kernels owning no node) is reported as only in BASE / only in NEW.
#include <string>
#include <vector>

#include "core/comparison.h"
#include "core/report_layer.h"

namespace rooflens {

// The identity of a layer within one run: its sorted owned ONNX nodes; an alias (layout/copy kernel, which owns
// nothing) by its kernel name and the nodes it serves; a kernel mapped to no node by its name. A repeated
// identity gets "#2", "#3", ... in execution order.
std::vector<std::string> layer_identities(const std::vector<Layer>& layers);

LayerComparison compare_layers(const std::vector<Layer>& base, const std::vector<Layer>& next);

}  // namespace rooflens
