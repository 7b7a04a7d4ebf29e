// Layer mapping (see layer_map.h for the rules). Everything is by tensor name; node names only anchor layers
// whose output tensors were renamed.
#include "mapping/layer_map.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <unordered_map>

namespace rooflens {
namespace {

bool iequals(const std::string& a, const std::string& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

class Mapper {
 public:
  Mapper(const GraphView& o, const GraphView& p, const MappingRules& rules) : O_(o), P_(p), rules_(rules) {
    out_.owner.assign(O_.nodes.size(), -1);
    out_.fate.assign(O_.nodes.size(), "");
    out_.layers.resize(P_.nodes.size());
    index_original();
  }

  LayerMapping run() {
    learn_from_layout_kernels();
    for (size_t i = 0; i < P_.nodes.size(); ++i) map_one(static_cast<int>(i));
    for (size_t o = 0; o < O_.nodes.size(); ++o)
      if (out_.owner[o] < 0) out_.fate[o] = constant_[o] ? "folded" : "eliminated";
    return std::move(out_);
  }

 private:
  void index_original() {
    for (size_t i = 0; i < O_.nodes.size(); ++i) {
      const auto& n = O_.nodes[i];
      by_name_.emplace(n.name, static_cast<int>(i));
      for (const auto& t : n.outputs)
        if (!t.empty()) producer_[t] = static_cast<int>(i);
      for (const auto& t : n.inputs)
        if (!t.empty()) consumers_[t].push_back(static_cast<int>(i));
    }
    // Constants: initializers (consumed, produced by nobody, not a runtime input) and everything computed
    // from constants only.
    constant_ = computed_from_constants(O_);
  }

  bool is_original_tensor(const std::string& t) const {
    return producer_.count(t) || O_.graph_inputs.count(t);
  }
  bool is_constant_tensor(const std::string& t) const {
    auto p = producer_.find(t);
    if (p != producer_.end()) return constant_[p->second];
    return !O_.graph_inputs.count(t);
  }

  // The original tensor an optimized-graph tensor holds (same values, maybe another layout), or "".
  std::string equivalent(const std::string& t) const {
    auto e = eq_.find(t);
    if (e != eq_.end()) return e->second;
    if (is_original_tensor(t)) return t;
    for (const auto& cand : rules_.tensor_candidates(t))
      if (is_original_tensor(cand)) return cand;
    return "";
  }

  // A layout kernel that writes an original tensor from a renamed one says what the renamed tensor holds (the same
  // values in another layout). Learnt before any kernel is mapped: the kernel that produced the renamed tensor
  // comes first and is anchored by it (a fused kernel named after none of its nodes, e.g. "<Mul>/QuickGeluFusion/").
  void learn_from_layout_kernels() {
    for (const auto& n : P_.nodes) {
      if (!rules_.is_layout_kernel(n)) continue;
      std::vector<const std::string*> data_inputs;
      for (const auto& t : n.inputs)
        if (!t.empty() && !(is_original_tensor(t) && is_constant_tensor(t))) data_inputs.push_back(&t);
      if (data_inputs.size() != 1 || n.outputs.size() != 1) continue;
      const std::string& in = *data_inputs.front();
      const std::string& out = n.outputs.front();
      if (!is_original_tensor(in) && is_original_tensor(out)) eq_.emplace(in, out);
    }
  }

  // The original node producing `t`, else the first node consuming it (for runtime inputs), else -1.
  int node_of(const std::string& t) const {
    auto p = producer_.find(t);
    if (p != producer_.end()) return p->second;
    auto c = consumers_.find(t);
    return c != consumers_.end() && !c->second.empty() ? c->second.front() : -1;
  }

  void map_one(int pi) {
    const auto& n = P_.nodes[pi];
    auto& entry = out_.layers[pi];
    std::unordered_set<std::string> stop;  // original tensors this kernel reads
    std::string first_in, first_constant;
    for (const auto& t : n.inputs) {
      std::string e = t.empty() ? "" : equivalent(t);
      if (e.empty()) {
        if (first_constant.empty() && consumers_.count(t)) first_constant = t;  // an initializer of the user's
        continue;
      }
      stop.insert(e);
      if (first_in.empty() && !is_constant_tensor(e)) first_in = e;
      if (first_constant.empty() && is_constant_tensor(e)) first_constant = e;
    }
    // A layout kernel over a weight (a runtime converting it on every run) carries it for the node that reads it.
    if (rules_.is_layout_kernel(n)) return alias(pi, first_in.empty() ? first_constant : first_in);

    std::vector<int> anchors;
    for (const auto& t : n.outputs) {
      const std::string e = t.empty() ? "" : equivalent(t);
      auto p = e.empty() ? producer_.end() : producer_.find(e);
      if (p != producer_.end()) anchors.push_back(p->second);
    }
    bool named = false;
    if (anchors.empty()) {
      // Runtimes name rewritten kernels after a node or after its *output tensor* ("<tensor>_suffix"): a
      // candidate may name a node or a tensor (the two only coincide in models that name tensors after nodes).
      for (const auto& cand : rules_.name_candidates(n.name)) {
        int o = -1;
        for (const auto* names : {&by_name_, &producer_}) {
          auto it = names->find(cand);
          if (it != names->end() && out_.owner[it->second] < 0) {
            o = it->second;
            break;
          }
        }
        if (o >= 0) {
          anchors.push_back(o);
          named = true;
          break;
        }
      }
    }
    if (anchors.empty()) return alias(pi, first_in);

    walk_back(pi, anchors, stop);
    int last = anchors.front();
    if (named) last = extend_forward(pi, last, stop, rules_.forward_fusion(n));
    entry.anchored_by_name = named;
    if (entry.owned.empty()) entry.alias_of = anchors.front();
    // Renamed outputs hold what the last fused original node produced.
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (!n.outputs[k].empty() && !is_original_tensor(n.outputs[k]) && k < O_.nodes[last].outputs.size())
        eq_[n.outputs[k]] = O_.nodes[last].outputs[k];
  }

  void alias(int pi, const std::string& tensor) {
    const auto& n = P_.nodes[pi];
    out_.layers[pi].alias_of = tensor.empty() ? -1 : node_of(tensor);
    for (const auto& t : n.outputs)
      if (!t.empty() && !is_original_tensor(t) && !tensor.empty()) eq_[t] = tensor;
  }

  void own(int pi, int o) {
    out_.owner[o] = pi;
    out_.layers[pi].owned.push_back(o);
  }

  void walk_back(int pi, const std::vector<int>& anchors, const std::unordered_set<std::string>& stop) {
    std::deque<int> todo(anchors.begin(), anchors.end());
    std::unordered_set<int> anchor_set(anchors.begin(), anchors.end());
    while (!todo.empty()) {
      int o = todo.front();
      todo.pop_front();
      if (out_.owner[o] >= 0) continue;
      if (constant_[o] && !anchor_set.count(o)) continue;  // folded unless the kernel computes it itself
      own(pi, o);
      for (const auto& t : O_.nodes[o].inputs) {
        if (t.empty() || stop.count(t)) continue;
        auto p = producer_.find(t);
        if (p != producer_.end()) todo.push_back(p->second);
      }
    }
    auto& owned = out_.layers[pi].owned;
    std::sort(owned.begin(), owned.end());
  }

  // The unique unowned consumer of node o's first output, or -1.
  int sole_consumer(int o) const {
    if (O_.nodes[o].outputs.empty()) return -1;
    auto c = consumers_.find(O_.nodes[o].outputs[0]);
    if (c == consumers_.end() || c->second.size() != 1) return -1;
    int x = c->second[0];
    return out_.owner[x] < 0 ? x : -1;
  }

  int extend_forward(int pi, int last, const std::unordered_set<std::string>& stop,
                     const MappingRules::ForwardFusion& fused) {
    // An Add of this kernel's result and another of its inputs: a fused residual sum.
    for (int x = fused.residual_add ? sole_consumer(last) : -1; x >= 0 && O_.nodes[x].op == "Add";
         x = sole_consumer(last)) {
      const auto& xn = O_.nodes[x];
      bool reads_other_input = false, only_known = true;
      for (const auto& t : xn.inputs) {
        if (t.empty() || t == O_.nodes[last].outputs[0] || is_constant_tensor(t)) continue;
        if (stop.count(t)) reads_other_input = true;
        else only_known = false;
      }
      if (!reads_other_input || !only_known) break;
      own(pi, x);
      last = x;
    }
    int x = fused.activation.empty() ? -1 : sole_consumer(last);
    if (x >= 0 && iequals(O_.nodes[x].op, fused.activation)) {
      own(pi, x);
      last = x;
    }
    return last;
  }

  const GraphView& O_;
  const GraphView& P_;
  const MappingRules& rules_;
  LayerMapping out_;
  std::unordered_map<std::string, int> producer_, by_name_;
  std::unordered_map<std::string, std::vector<int>> consumers_;
  std::unordered_map<std::string, std::string> eq_;  // renamed optimized tensor -> original tensor
  std::vector<bool> constant_;
};

}  // namespace

const MappingRules& plain_mapping_rules() {
  static const MappingRules rules;
  return rules;
}

LayerMapping map_layers(const GraphView& original, const GraphView& executed, const MappingRules& rules) {
  return Mapper(original, executed, rules).run();
}

}  // namespace rooflens
