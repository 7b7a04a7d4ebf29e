// Kernels to the user's nodes they compute (see kernel_ownership.h for the ways a source says so).
#include "mapping/kernel_ownership.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <unordered_map>

#include "mapping/layer_map.h"

namespace rooflens {
namespace {

class NodeAssigner {
 public:
  NodeAssigner(const std::vector<KernelRecord>& kernels, const GraphView& original, const GraphView* executed,
               const MappingRules& rules, const std::vector<SubgraphNode>& subgraph_nodes)
      : kernels_(kernels), original_(original), executed_(executed), rules_(rules),
        map_(map_layers(original, executed ? *executed : GraphView{}, rules_)) {
    for (size_t i = 0; i < original.nodes.size(); ++i) {
      const auto& n = original.nodes[i];
      by_name_.emplace(n.name, static_cast<int>(i));
      for (const auto& t : n.outputs)
        if (!t.empty()) producer_.emplace(t, static_cast<int>(i));
      for (const auto& t : n.inputs)
        if (!t.empty()) consumers_[t].push_back(static_cast<int>(i));
    }
    if (executed)
      for (size_t i = 0; i < executed->nodes.size(); ++i) {
        const auto& n = executed->nodes[i];
        if (n.unnamed) unnamed_by_op_[n.op].push_back(i);
        else executed_by_name_.emplace(n.name, i);
      }
    o_.owned.resize(kernels.size());
    o_.alias_of.assign(kernels.size(), -1);
    o_.sub_node.assign(kernels.size(), -1);
    o_.layer_of.assign(original.nodes.size(), -1);
    for (const SubgraphNode& n : subgraph_nodes) sub_by_name_[n.name].push_back(n.id);
  }

  KernelOwnership run() {
    std::set<size_t> timed_executed;
    for (size_t k = 0; k < kernels_.size(); ++k) {
      if (!kernels_[k].enclosing.empty()) {
        claim_in_subgraph(k);
        continue;
      }
      if (!kernels_[k].onnx_nodes.empty()) {
        claim_listed(k);
        continue;
      }
      if (std::optional<size_t> p = executed_node(k)) {
        timed_executed.insert(*p);
        for (int o : map_.layers[*p].owned) claim(k, o);
        if (o_.owned[k].empty()) o_.alias_of[k] = map_.layers[*p].alias_of;
      } else {
        claim_by_name(k);
      }
    }
    alias_inserted_for_neighbours();
    add_untimed(timed_executed);
    for (size_t o = 0; o < o_.layer_of.size(); ++o)
      if (o_.layer_of[o] < 0) o_.fate.push_back(map_.fate[o].empty() ? "eliminated" : map_.fate[o]);
      else o_.fate.emplace_back();
    for (auto& owned : o_.owned) std::sort(owned.begin(), owned.end());
    return std::move(o_);
  }

 private:
  // The executed-graph node a kernel ran: by name, else (a node the graph file left unnamed, which the runtime's
  // profile names its own way) the next unnamed node of the same op, in order: kernels come in the order they ran,
  // and the executed graph lists its nodes in the order they run.
  std::optional<size_t> executed_node(size_t k) {
    auto p = executed_by_name_.find(kernels_[k].name);
    if (p != executed_by_name_.end()) return p->second;
    auto u = unnamed_by_op_.find(kernels_[k].op);
    if (u == unnamed_by_op_.end() || u->second.empty()) return std::nullopt;
    size_t next = u->second.front();
    u->second.pop_front();
    return next;
  }

  bool claim(size_t layer, int o) {
    if (o < 0 || o_.layer_of[static_cast<size_t>(o)] >= 0) return false;
    o_.layer_of[static_cast<size_t>(o)] = static_cast<int>(layer);
    o_.owned[layer].push_back(o);
    return true;
  }

  // A kernel that ran inside a control-flow kernel computes a node of one of its subgraphs, found by name (the
  // first executed one not yet taken: If branches and Loop bodies may reuse names).
  void claim_in_subgraph(size_t k) {
    for (const auto& cand : rules_.name_candidates(kernels_[k].name)) {
      auto it = sub_by_name_.find(cand);
      if (it == sub_by_name_.end()) continue;
      for (int a : it->second)
        if (o_.sub_claimed.insert(a).second) {
          o_.sub_node[k] = a;
          return;
        }
    }
  }

  // The source said which nodes the kernel computes: the first kernel to name a node owns it.
  void claim_listed(size_t k) {
    for (const auto& name : kernels_[k].onnx_nodes) {
      auto it = by_name_.find(name);
      if (it == by_name_.end()) {
        o_.warnings.push_back("kernel '" + kernels_[k].name + "' names ONNX node '" + name + "', which the model lacks");
        continue;
      }
      if (!claim(k, it->second) && o_.owned[k].empty()) o_.alias_of[k] = it->second;
    }
    if (!o_.owned[k].empty()) o_.alias_of[k] = -1;
  }

  // A user node by its name, else the producer of the tensor so named; -1 when neither.
  int node_named(const std::string& name) const {
    auto o = by_name_.find(name);
    if (o != by_name_.end()) return o->second;
    auto p = producer_.find(name);
    return p != producer_.end() ? p->second : -1;
  }

  // Every node on a path from `first` to `last` (both included): descendants of first that are ancestors of last.
  std::vector<int> span(int first, int last) const {
    auto reach = [this](int from, bool forward) {
      std::vector<bool> seen(original_.nodes.size(), false);
      std::vector<int> todo{from};
      seen[static_cast<size_t>(from)] = true;
      while (!todo.empty()) {
        int n = todo.back();
        todo.pop_back();
        const auto& node = original_.nodes[static_cast<size_t>(n)];
        for (const auto& t : forward ? node.outputs : node.inputs) {
          std::vector<int> next;
          if (forward) {
            auto c = consumers_.find(t);
            if (c != consumers_.end()) next = c->second;
          } else if (auto p = producer_.find(t); p != producer_.end()) {
            next.push_back(p->second);
          }
          for (int x : next)
            if (!seen[static_cast<size_t>(x)]) seen[static_cast<size_t>(x)] = true, todo.push_back(x);
        }
      }
      return seen;
    };
    std::vector<bool> down = reach(first, true), up = reach(last, false);
    std::vector<int> out;
    for (size_t i = 0; i < down.size(); ++i)
      if (down[i] && up[i]) out.push_back(static_cast<int>(i));
    return out;
  }

  // The kernel's name lists the user's nodes it computes (a runtime that names fused kernels "A + B + C").
  void claim_named(size_t k, const MappingRules::NamedNodes& named) {
    int first_taken = -1;
    auto take = [&](int o) {
      if (o < 0) return;
      if (!claim(k, o) && first_taken < 0) first_taken = o;
    };
    for (const auto& name : named.nodes) take(node_named(name));
    for (const auto& [a, b] : named.spans) {
      int first = node_named(a), last = node_named(b);
      if (first < 0 || last < 0) {
        take(first >= 0 ? first : last);
        continue;
      }
      for (int o : span(first, last)) take(o);
    }
    if (o_.owned[k].empty() && first_taken >= 0) o_.alias_of[k] = first_taken;  // computed again, or fused away
  }

  // No executed graph (or a kernel outside it): the kernel's own name may be the user's node, or list several.
  // A kernel that only moves tensors (the source says so) is an alias of the node it names.
  void claim_by_name(size_t k) {
    const KernelRecord& kr = kernels_[k];
    const bool moves_only = kr.kind != LayerKind::compute;
    if (!executed_ && !moves_only) {
      MappingRules::NamedNodes named = rules_.nodes_in_name(kr.name);
      if (!named.empty()) {
        claim_named(k, named);
        if (!o_.owned[k].empty() || o_.alias_of[k] >= 0) return;
      }
    }
    for (const auto& cand : rules_.name_candidates(kr.name)) {
      int o = node_named(cand);
      if (o < 0) continue;
      if (executed_ || moves_only || !claim(k, o)) o_.alias_of[k] = o;
      return;
    }
  }

  // Kernels nothing mapped that the runtime inserted for the kernel before or after them carry that kernel's node's
  // tensor (rules.serves_neighbour).
  void alias_inserted_for_neighbours() {
    const auto n = static_cast<std::ptrdiff_t>(kernels_.size());
    for (std::ptrdiff_t k = 0; k < n; ++k) {
      const auto ku = static_cast<size_t>(k);
      if (!o_.owned[ku].empty() || o_.alias_of[ku] >= 0 || o_.sub_node[ku] >= 0) continue;
      const int step = rules_.serves_neighbour(kernels_[ku].name);
      if (step == 0) continue;
      for (std::ptrdiff_t j = k + step; j >= 0 && j < n; j += step) {
        const auto ju = static_cast<size_t>(j);
        if (rules_.serves_neighbour(kernels_[ju].name) == step) continue;  // another one inserted for the same kernel
        o_.alias_of[ku] = o_.owned[ju].empty() ? o_.alias_of[ju] : o_.owned[ju].front();
        break;
      }
    }
  }

  void add_untimed(const std::set<size_t>& timed) {
    for (size_t i = 0; i < map_.layers.size(); ++i) {
      if (timed.count(i) || map_.layers[i].owned.empty()) continue;
      size_t layer = o_.owned.size();
      o_.owned.emplace_back();
      o_.alias_of.push_back(-1);
      o_.sub_node.push_back(-1);
      for (int o : map_.layers[i].owned) claim(layer, o);
      o_.untimed.push_back(executed_->nodes[i].name);
      o_.untimed_op.push_back(executed_->nodes[i].op);
    }
  }

  const std::vector<KernelRecord>& kernels_;
  const GraphView& original_;
  const GraphView* executed_;
  const MappingRules& rules_;
  LayerMapping map_;
  std::unordered_map<std::string, int> by_name_, producer_;
  std::unordered_map<std::string, std::vector<int>> consumers_;
  std::unordered_map<std::string, size_t> executed_by_name_;
  std::unordered_map<std::string, std::deque<size_t>> unnamed_by_op_;  // executed nodes without a name, in order
  std::unordered_map<std::string, std::vector<int>> sub_by_name_;  // ids of the subgraph nodes that run, by name
  KernelOwnership o_;
};

}  // namespace

KernelOwnership assign_kernels(const std::vector<KernelRecord>& kernels, const GraphView& original,
                               const GraphView* executed, const MappingRules& rules,
                               const std::vector<SubgraphNode>& subgraph_nodes) {
  return NodeAssigner(kernels, original, executed, rules, subgraph_nodes).run();
}

}  // namespace rooflens
