#pragma once
// OpenCV's layers as kernels computing the user's ONNX nodes. OpenCV's ONNX importer names a layer after the node
// it comes from ("onnx_node!<node name>", "onnx_node_output_0!<output>" for an unnamed node); helper layers it adds
// carry that name plus a suffix ("onnx_node!x/Flatten/flatten"), and graph outputs get Identity layers named after
// the output tensor. Layers
// OpenCV fused into another (BatchNorm and ReLU into the convolution before them, a Concat whose inputs were
// written in place) report no time: the layer that absorbed them — the nearest input that ran — owns their nodes.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph_view.h"
#include "core/measurement.h"

namespace rooflens::opencv {

// `layers`: [{name, type, inputs: [layer names], times_ms: [per measured iteration]}] in OpenCV's layer order.
// Layers that map to no node are kept (named as OpenCV names them) and a warning says so.
std::vector<KernelRecord> kernels_from_layers(const nlohmann::json& layers, const GraphView& model,
                                              std::vector<std::string>& warnings);

}  // namespace rooflens::opencv
