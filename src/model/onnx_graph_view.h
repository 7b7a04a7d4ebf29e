#pragma once
// ONNX graphs as neutral graph views (core/graph_view.h), for the mapper: the user's model as loaded, and a graph
// a runtime dumped (ONNX Runtime's optimized model) read lightly — structure only, no shapes, no weights.
#include <string>

#include "core/graph_view.h"
#include "model/graph.h"

namespace rooflens {

// The main graph of a loaded model, with every node's string attributes.
GraphView graph_view(const Model& model);

// The main graph of an ONNX file: nodes in topological order, unnamed ones named "<op>_<index>" as the loader
// names them. Throws UserError naming the file when it is not a readable ONNX model.
GraphView read_graph_view(const std::string& path);

}  // namespace rooflens
