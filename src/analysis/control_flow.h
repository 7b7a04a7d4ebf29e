#pragma once
// Private to analysis/: how often each subgraph's nodes run and whether they count, from what shape resolution
// learnt about If conditions and Loop/Scan trip counts (Graph::run, Graph::trips).
#include <cstdint>
#include <string>
#include <vector>

#include "core/report_model.h"
#include "model/graph.h"

namespace rooflens {

struct GraphExecution {
  NodeExecution execution = NodeExecution::Run;
  int64_t iterations = 1;  // runs per inference, enclosing loops included (-1 unknown)
};

// One entry per Model::graphs index. `own_flops[g]` is the FLOPs of graph g's own nodes for one run (it decides
// which branch of an If with an unknown condition counts: the costlier, bodies nested in it included). Adds a note
// per If whose condition is unknown and per Loop/Scan whose trip count is unknown.
std::vector<GraphExecution> graph_executions(const Model& m, const std::vector<uint64_t>& own_flops,
                                             std::vector<std::string>& notes);

// Applies a graph's execution to one of its nodes' analysis: zero cost when not taken; flops, macs and bytes
// times the iterations; unknown cost when the iterations are.
void apply_execution(NodeAnalysis& a, const GraphExecution& e);

// Per-subgraph totals (graphs 1.. of the model) over the analysed nodes; `node_graph[i]` is node i's graph index.
std::vector<SubgraphSummary> subgraph_summaries(const Model& m, const std::vector<GraphExecution>& exec,
                                                const std::vector<NodeAnalysis>& nodes,
                                                const std::vector<int>& node_graph);

}  // namespace rooflens
