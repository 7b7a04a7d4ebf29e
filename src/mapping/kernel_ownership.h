#pragma once
// Which of the user's nodes each measured kernel computes: the kernels a source recorded (core/measurement.h), in
// the order they ran, each given the user's nodes it owns, or the node whose tensor it only carries (an alias).
// On top of map_layers (mapping/layer_map.h), which maps the executed graph's nodes, this follows every other way a
// source says which nodes a kernel ran:
//  - the kernel is a node of the executed graph: by name, else (a node the graph file left unnamed) the next unnamed
//    node of the same op, in order; it owns what map_layers gave that node;
//  - the source listed the kernel's nodes (KernelRecord::onnx_nodes): the first kernel to name a node owns it;
//  - the kernel ran inside a control-flow kernel (KernelRecord::enclosing): it computes a node of a subgraph body,
//    found by name (rules.name_candidates);
//  - no executed graph (or a kernel outside it): the kernel's name is the node's (rules.name_candidates), or lists
//    several (rules.nodes_in_name: "A + B + C", spans "A..C");
//  - executed nodes that own user nodes but recorded no time become layers of their own after the kernels, so
//    their nodes' FLOPs do not vanish.
// Nodes no layer owns get their fate from map_layers (folded), else "eliminated".
#include <set>
#include <string>
#include <vector>

#include "core/graph_view.h"
#include "core/measurement.h"
#include "mapping/rules.h"

namespace rooflens {

// A node of a subgraph body that runs (an If branch taken, a Loop or Scan body), which a kernel inside a
// control-flow kernel may compute: its name and the caller's id for it (assembly: its index in the analysis).
// Names may repeat (If branches and Loop bodies reuse them): a kernel takes the first not yet taken, in this order.
struct SubgraphNode {
  std::string name;
  int id = -1;
};

// Layers are the kernels, in order, then the executed nodes that own user nodes but recorded no time.
struct KernelOwnership {
  std::vector<std::vector<int>> owned;  // per layer: original node indices, ascending
  std::vector<int> alias_of;            // per layer: the node whose tensor an alias carries, else -1
  std::vector<int> sub_node;            // per layer: the id of the subgraph node a kernel that ran inside a
                                        // control-flow kernel computes, else -1
  std::set<int> sub_claimed;            // those subgraph nodes' ids: their enclosing top-level layer no longer counts them
  std::vector<std::string> untimed;     // per extra layer: its executed-graph node (name, op)
  std::vector<std::string> untimed_op;
  std::vector<int> layer_of;            // per original node: its layer, or -1
  std::vector<std::string> fate;        // per original node: folded | eliminated when no layer owns it
  std::vector<std::string> warnings;
};

// `original`: the user's main graph; `executed`: the graph the kernels are nodes of (null: kernels matched by name
// only); `rules`: the source's (plain_mapping_rules() for one that renames nothing).
KernelOwnership assign_kernels(const std::vector<KernelRecord>& kernels, const GraphView& original,
                               const GraphView* executed, const MappingRules& rules,
                               const std::vector<SubgraphNode>& subgraph_nodes);

}  // namespace rooflens
