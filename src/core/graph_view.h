#pragma once
// A graph as a runtime executed it, in neutral form: node names, ops and the tensors they connect. The user's
// ONNX graph and a runtime's optimized graph are both read into this; the mapper (mapping/) walks it. No runtime
// conventions here: what a runtime's names and attributes mean lives in its mapping rules.
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace rooflens {

struct GraphView {
  struct Node {
    std::string name, op, domain;
    std::vector<std::string> inputs, outputs;    // "" = omitted optional input
    std::map<std::string, std::string> attributes;  // string attributes a runtime's mapping rules read
    bool unnamed = false;  // the file named it not: `name` is made up ("<op>_<position>"); a runtime's profile names
                           // such a node its own way, so its kernels are paired with it by op and order instead
  };
  std::vector<Node> nodes;                       // topological order
  std::unordered_set<std::string> graph_inputs;  // runtime inputs (not initializers)
  std::vector<std::string> graph_outputs;
  // Bytes of each initializer the file holds (read_graph_view only): in a runtime's executed graph these include the
  // constants it folded at inference session creation, which the user's model does not name.
  std::unordered_map<std::string, uint64_t> constant_bytes;
  // Every constant tensor of the file, of every graph, in the order a reader of the file meets them (read_graph_view
  // only): a graph's nodes come before its initializers in an ONNX file, so a Constant node's value (and the constants
  // of a subgraph, at its node) come before the graph's initializers. A runtime parses, copies and rewrites them in
  // this order when it creates an inference session (memory/: the inference session's creation through the C
  // allocator).
  struct Constant {
    std::string name;
    uint64_t bytes = 0;
  };
  std::vector<Constant> constants;
};

// Per node: computed from constants only — initializers, and what other such nodes compute — so a runtime folds it
// once when it creates the inference session and never runs it per inference (a random generator is never one).
std::vector<bool> computed_from_constants(const GraphView& g);

}  // namespace rooflens
