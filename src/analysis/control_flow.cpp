#include "analysis/control_flow.h"

#include <algorithm>
#include <climits>
#include <map>

#include "core/saturating.h"
#include "core/units.h"

namespace rooflens {
namespace {

int64_t times_of(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return -1;
  int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

const Node* owner(const Model& m, int g) {
  const Graph& graph = m.graphs[static_cast<size_t>(g)];
  if (graph.parent_graph < 0) return nullptr;
  const auto& nodes = m.graphs[static_cast<size_t>(graph.parent_graph)].nodes;
  return graph.parent_node >= 0 && static_cast<size_t>(graph.parent_node) < nodes.size() ? &nodes[static_cast<size_t>(graph.parent_node)] : nullptr;
}

// FLOPs of one run of graph g with every body nested in it, as control flow counts them (branches not taken
// excluded, the costlier of two undecided branches, loop bodies times their trips — once when unknown).
std::vector<uint64_t> subtree_flops(const Model& m, const std::vector<uint64_t>& own) {
  const size_t n = m.graphs.size();
  std::vector<uint64_t> total(own.begin(), own.end());
  total.resize(n, 0);
  // The costlier branch of each undecided If, by (graph, node) of the If, folded into its graph when done.
  std::map<std::pair<size_t, int>, uint64_t> undecided;
  auto fold = [&](size_t g) {
    for (auto it = undecided.lower_bound({g, INT32_MIN}); it != undecided.end() && it->first.first == g;)
      total[g] = sat_add(total[g], it->second), it = undecided.erase(it);
  };
  // Children have larger indices than their parents (bodies are collected depth-first after their owner), so
  // walking backwards finishes every body before its parent.
  for (size_t g = n; g-- > 1;) {
    fold(g);
    const Graph& graph = m.graphs[g];
    const auto p = static_cast<size_t>(graph.parent_graph);
    if (graph.parent_graph < 0 || p >= g || graph.run == BodyRun::NotTaken) continue;
    const uint64_t part = sat_mul(total[g], static_cast<uint64_t>(graph.trips < 0 ? 1 : graph.trips));
    if (graph.run == BodyRun::Unknown) {
      auto& best = undecided[{p, graph.parent_node}];
      best = std::max(best, part);
    } else {
      total[p] = sat_add(total[p], part);
    }
  }
  fold(0);
  return total;
}

}  // namespace

std::vector<GraphExecution> graph_executions(const Model& m, const std::vector<uint64_t>& own_flops,
                                             std::vector<std::string>& notes) {
  const size_t n = m.graphs.size();
  std::vector<GraphExecution> exec(n);
  if (n == 0) return exec;
  const std::vector<uint64_t> flops = subtree_flops(m, own_flops);
  for (size_t g = 1; g < n; ++g) {
    const Graph& graph = m.graphs[g];
    const auto p = static_cast<size_t>(graph.parent_graph);
    if (graph.parent_graph < 0 || p >= g) continue;
    exec[g].iterations = times_of(exec[p].iterations, graph.trips);
    if (exec[p].execution != NodeExecution::Run) {
      exec[g].execution = exec[p].execution;
      continue;
    }
    if (graph.run == BodyRun::NotTaken) exec[g].execution = NodeExecution::NotTaken;
    if (graph.run == BodyRun::Unknown) {
      // The other branch of the same If: the costlier of the two counts (then_branch on a tie).
      for (size_t o = 1; o < n; ++o) {
        const Graph& other = m.graphs[o];
        if (o == g || other.parent_graph != graph.parent_graph || other.parent_node != graph.parent_node) continue;
        const bool mine_cheaper = flops[g] < flops[o] || (flops[g] == flops[o] && graph.attribute != "then_branch");
        if (mine_cheaper) exec[g].execution = NodeExecution::NotCounted;
        else if (const Node* node = owner(m, static_cast<int>(g)))
          notes.push_back("If '" + node->name + "': condition not computable; both branches analysed, the costlier (" +
                          graph.attribute + ", " + si(static_cast<double>(flops[g])) + "FLOPs against " +
                          si(static_cast<double>(flops[o])) + ") counted");
      }
    }
    if (graph.trips < 0 && exec[g].execution == NodeExecution::Run)
      if (const Node* loop = owner(m, static_cast<int>(g)))
        notes.push_back(loop->op + " '" + loop->name + "': trip count not computable; its body's cost is unknown");
  }
  return exec;
}

void apply_execution(NodeAnalysis& a, const GraphExecution& e) {
  a.execution = e.execution;
  a.iterations = e.iterations;
  if (e.execution == NodeExecution::NotTaken) {
    a.flops = a.macs = a.bytes_read = a.bytes_written = 0;
    a.intensity = 0;
    a.cost_known = true;
    a.note = "in an If branch not taken";
    return;
  }
  if (e.iterations < 0) {
    a.cost_known = false;
    a.note = "runs an unknown number of times_of (trip count not computable)";
    return;
  }
  if (e.iterations == 1) return;
  const auto k = static_cast<uint64_t>(e.iterations);
  a.flops = sat_mul(a.flops, k);
  a.macs = sat_mul(a.macs, k);
  a.bytes_read = sat_mul(a.bytes_read, k);
  a.bytes_written = sat_mul(a.bytes_written, k);
}

std::vector<SubgraphSummary> subgraph_summaries(const Model& m, const std::vector<GraphExecution>& exec,
                                                const std::vector<NodeAnalysis>& nodes,
                                                const std::vector<int>& node_graph) {
  const size_t n = m.graphs.size();
  std::vector<SubgraphSummary> s(n);
  for (size_t g = 1; g < n; ++g) {
    const Graph& graph = m.graphs[g];
    s[g].graph = graph.path;
    s[g].attribute = graph.attribute;
    s[g].execution = exec[g].execution;
    s[g].iterations = exec[g].iterations;
    if (const Node* o = owner(m, static_cast<int>(g))) s[g].node = o->name;
  }
  for (size_t i = 0; i < nodes.size() && i < node_graph.size(); ++i)
    for (int g = node_graph[i]; g > 0 && static_cast<size_t>(g) < n; g = m.graphs[static_cast<size_t>(g)].parent_graph) {
      auto& t = s[static_cast<size_t>(g)];
      t.nodes++;
      t.flops = sat_add(t.flops, nodes[i].flops);
      t.macs = sat_add(t.macs, nodes[i].macs);
      t.bytes_read = sat_add(t.bytes_read, nodes[i].bytes_read);
      t.bytes_written = sat_add(t.bytes_written, nodes[i].bytes_written);
    }
  // In node-list order: a body follows its owner, i.e. graph index order.
  if (!s.empty()) s.erase(s.begin());
  return s;
}

}  // namespace rooflens
