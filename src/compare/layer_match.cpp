#include "compare/layer_match.h"

#include <algorithm>
#include <cmath>
#include <map>

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
  for (size_t i = 0; i < next.size(); ++i) {
    auto it = base_at.find(new_ids[i]);
    if (it == base_at.end()) {
      c.only_new.push_back(one_side(next[i], false));
      continue;
    }
    base_used[it->second] = true;
    LayerDelta d = one_side(next[i], false);
    d.base_ms = base[it->second].time_ms;
    d.base_share = base[it->second].share;
    c.matched.push_back(std::move(d));
  }
  for (size_t i = 0; i < base.size(); ++i)
    if (!base_used[i]) c.only_base.push_back(one_side(base[i], true));
  std::stable_sort(c.matched.begin(), c.matched.end(), [](const LayerDelta& a, const LayerDelta& b) {
    return std::fabs(a.delta_ms()) > std::fabs(b.delta_ms());
  });
  by_time_descending(c.only_base);
  by_time_descending(c.only_new);
  return c;
}

}  // namespace rooflens
