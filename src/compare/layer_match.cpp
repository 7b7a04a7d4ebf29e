#include "compare/layer_match.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace rooflens {
namespace {

// '\x1f' (unit separator) cannot be confused with anything in a node name a model would use.
constexpr char kSep = '\x1f';

std::string identity(const Layer& l) {
  std::vector<std::string> nodes = l.onnx_nodes;
  std::sort(nodes.begin(), nodes.end());
  std::string key = l.alias ? "alias" + std::string(1, kSep) + l.name : nodes.empty() ? "kernel" + std::string(1, kSep) + l.name : "nodes";
  for (const auto& n : nodes) key += kSep + n;
  return key;
}

LayerDelta one_side(const Layer& l, bool is_base) {
  LayerDelta d;
  d.name = l.name;
  d.op = l.op;
  d.onnx_nodes = l.onnx_nodes;
  d.alias = l.alias;
  (is_base ? d.base_ms : d.new_ms) = l.time_ms;
  (is_base ? d.base_share : d.new_share) = l.share;
  return d;
}

// Union-find over the left-over layers of both sides (BASE's first, then NEW's).
struct Groups {
  std::vector<size_t> parent;
  explicit Groups(size_t n) : parent(n) {
    for (size_t i = 0; i < n; ++i) parent[i] = i;
  }
  size_t root(size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  void join(size_t a, size_t b) { parent[root(a)] = root(b); }
};

bool groupable(const Layer& l) { return !l.alias && !l.onnx_nodes.empty(); }

// Left-over layers that own nodes are grouped with every left-over layer of either side sharing one of them; a
// group with layers on both sides is a fusion change, the rest stays one-sided.
void regroup(const std::vector<const Layer*>& base, const std::vector<const Layer*>& next, LayerComparison& c) {
  size_t nb = base.size();
  Groups g(nb + next.size());
  auto layer_at = [&](size_t i) { return i < nb ? base[i] : next[i - nb]; };
  std::map<std::string, size_t> first_owner;
  for (size_t i = 0; i < nb + next.size(); ++i) {
    if (!groupable(*layer_at(i))) continue;
    for (const auto& node : layer_at(i)->onnx_nodes) {
      auto [it, fresh] = first_owner.emplace(node, i);
      if (!fresh) g.join(i, it->second);
    }
  }
  std::map<size_t, std::vector<size_t>> members;  // root -> layers, in order (BASE's, then NEW's)
  for (size_t i = 0; i < nb + next.size(); ++i) members[g.root(i)].push_back(i);
  for (const auto& [root, ids] : members) {
    bool has_base = ids.front() < nb, has_new = ids.back() >= nb;
    if (!(has_base && has_new)) {
      for (size_t i : ids) (i < nb ? c.only_base : c.only_new).push_back(one_side(*layer_at(i), i < nb));
      continue;
    }
    LayerGroupDelta d;
    std::set<std::string> nodes;
    for (size_t i : ids) {
      const Layer& l = *layer_at(i);
      (i < nb ? d.base_layers : d.new_layers).push_back(l.name);
      (i < nb ? d.base_ms : d.new_ms) += l.time_ms;
      (i < nb ? d.base_share : d.new_share) += l.share;
      nodes.insert(l.onnx_nodes.begin(), l.onnx_nodes.end());
    }
    d.onnx_nodes.assign(nodes.begin(), nodes.end());
    c.regrouped.push_back(std::move(d));
  }
}

void by_time_descending(std::vector<LayerDelta>& v) {
  std::stable_sort(v.begin(), v.end(), [](const LayerDelta& a, const LayerDelta& b) {
    return std::max(a.base_ms, a.new_ms) > std::max(b.base_ms, b.new_ms);
  });
}

}  // namespace

std::vector<std::string> layer_identities(const std::vector<Layer>& layers) {
  std::vector<std::string> ids;
  std::map<std::string, int> seen;
  for (const auto& l : layers) {
    std::string id = identity(l);
    int k = ++seen[id];
    ids.push_back(k == 1 ? id : id + kSep + "#" + std::to_string(k));
  }
  return ids;
}

LayerComparison compare_layers(const std::vector<Layer>& base, const std::vector<Layer>& next) {
  LayerComparison c;
  auto base_ids = layer_identities(base), new_ids = layer_identities(next);
  std::map<std::string, size_t> base_at;
  for (size_t i = 0; i < base.size(); ++i) base_at[base_ids[i]] = i;
  std::vector<bool> base_used(base.size(), false);
  std::vector<const Layer*> base_left, new_left;
  for (size_t i = 0; i < next.size(); ++i) {
    auto it = base_at.find(new_ids[i]);
    if (it == base_at.end()) {
      new_left.push_back(&next[i]);
      continue;
    }
    base_used[it->second] = true;
    LayerDelta d = one_side(next[i], false);
    d.base_name = base[it->second].name;
    d.base_ms = base[it->second].time_ms;
    d.base_share = base[it->second].share;
    c.matched.push_back(std::move(d));
  }
  for (size_t i = 0; i < base.size(); ++i)
    if (!base_used[i]) base_left.push_back(&base[i]);
  regroup(base_left, new_left, c);
  auto by_delta = [](const auto& a, const auto& b) { return std::fabs(a.delta_ms()) > std::fabs(b.delta_ms()); };
  std::stable_sort(c.matched.begin(), c.matched.end(), by_delta);
  std::stable_sort(c.regrouped.begin(), c.regrouped.end(), by_delta);
  by_time_descending(c.only_base);
  by_time_descending(c.only_new);
  return c;
}

}  // namespace rooflens
