#include "model/runtime_shape_check.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace rooflens {

std::vector<std::string> observable_tensors(const Model& m) {
  std::vector<std::string> names;
  if (m.graphs.empty()) return names;
  const Graph& g = m.graphs[0];
  std::unordered_set<std::string> seen(g.outputs.begin(), g.outputs.end());
  for (const auto& node : g.nodes)
    for (const auto& out : node.outputs) {
      if (out.empty() || !seen.insert(out).second) continue;
      const TensorInfo* t = g.find(out);
      if (t && t->kind != ValueKind::Tensor && t->kind != ValueKind::Unknown) continue;  // sequences, maps ...
      names.push_back(out);
    }
  return names;
}

int64_t take_runtime_shapes(Model& m, const std::map<std::string, std::vector<int64_t>>& shapes) {
  if (m.graphs.empty()) return 0;
  int64_t changed = 0;
  for (const auto& [name, dims] : shapes) {
    auto it = m.graphs[0].tensors.find(name);
    if (it == m.graphs[0].tensors.end() || it->second.fully_known()) continue;
    TensorInfo t = make_tensor_info(it->second.dtype, dims);
    t.from_runtime = true;
    it->second = std::move(t);
    ++changed;
  }
  return changed;
}

ShapeCheck compare_with_runtime(const Model& m, const std::vector<TensorValue>& runtime) {
  ShapeCheck c;
  if (m.graphs.empty()) return c;
  std::unordered_map<std::string, const TensorValue*> by_name;
  for (const auto& v : runtime) by_name.emplace(v.name, &v);
  for (size_t g = 1; g < m.graphs.size(); ++g)
    for (const auto& node : m.graphs[g].nodes)
      for (const auto& out : node.outputs) c.inside_bodies += !out.empty();
  const Graph& main = m.graphs[0];
  std::unordered_set<std::string> done;
  for (const auto& node : main.nodes)
    for (const auto& out : node.outputs) {
      if (out.empty() || !done.insert(out).second) continue;
      const TensorInfo* t = main.find(out);
      if (t && t->kind != ValueKind::Tensor && t->kind != ValueKind::Unknown) {
        ++c.non_tensors;
        continue;
      }
      ShapeCheckItem item{out, node.name, node.op, t ? t->shape_string() : "?", {}};
      auto it = by_name.find(out);
      if (it == by_name.end()) {
        c.missing.push_back(std::move(item));
        continue;
      }
      item.runtime = it->second->dims;
      ++c.compared;
      if (!t || !t->fully_known()) c.unresolved.push_back(std::move(item));
      else if (t->values() != item.runtime) c.mismatches.push_back(std::move(item));
      else ++c.equal;
    }
  return c;
}

void compare_body_nodes(const Model& m, const std::vector<NodeShapes>& ran, ShapeCheck& c) {
  std::unordered_map<std::string, const NodeShapes*> by_node;
  for (const auto& k : ran) by_node.emplace(k.node, &k);
  std::vector<bool> not_taken(m.graphs.size(), false);  // parents come before their bodies
  for (size_t g = 1; g < m.graphs.size(); ++g) {
    const int p = m.graphs[g].parent_graph;
    not_taken[g] = m.graphs[g].run == BodyRun::NotTaken || (p > 0 && not_taken[static_cast<size_t>(p)]);
  }
  for (size_t g = 1; g < m.graphs.size(); ++g)
    for (const auto& node : m.graphs[g].nodes) {
      auto it = by_node.find(node.name);
      const size_t outs = static_cast<size_t>(std::count_if(node.outputs.begin(), node.outputs.end(),
                                                            [](const std::string& o) { return !o.empty(); }));
      if (it == by_node.end()) {
        if (not_taken[g]) {
          c.not_taken += static_cast<int64_t>(outs);
        } else if (node.op != "Constant") {
          for (const auto& o : node.outputs)
            if (!o.empty()) c.missing.push_back({o, node.name, node.op, "", {}});
        }
        continue;
      }
      if (not_taken[g]) {  // the runtime ran a node of a branch static resolution said never runs
        c.mismatches.push_back({node.outputs.empty() ? "" : node.outputs[0], node.name, node.op, "(branch not taken)",
                                it->second->outputs.empty() ? std::vector<int64_t>{} : it->second->outputs[0]});
        c.inside_bodies -= static_cast<int64_t>(outs);
        continue;
      }
      for (size_t i = 0; i < node.outputs.size() && i < it->second->outputs.size(); ++i) {
        if (node.outputs[i].empty()) continue;
        const TensorInfo* t = m.find_tensor(static_cast<int>(g), node.outputs[i]);
        --c.inside_bodies;
        if (t && t->kind != ValueKind::Tensor && t->kind != ValueKind::Unknown) {
          ++c.non_tensors;
          continue;
        }
        ShapeCheckItem item{node.outputs[i], node.name, node.op, t ? t->shape_string() : "?", it->second->outputs[i]};
        ++c.compared;
        if (!t || !t->fully_known()) c.unresolved.push_back(std::move(item));
        else if (t->values() != item.runtime) c.mismatches.push_back(std::move(item));
        else ++c.equal;
      }
    }
}

}  // namespace rooflens
