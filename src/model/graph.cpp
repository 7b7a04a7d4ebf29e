#include "model/graph.h"

namespace rooflens {

const Attribute* Node::attr(const std::string& n) const {
  for (const auto& a : attrs)
    if (a.name == n) return &a;
  return nullptr;
}
int64_t Node::attr_i(const std::string& n, int64_t def) const {
  auto* a = attr(n);
  return a && a->kind == Attribute::Kind::Int ? a->i : def;
}
float Node::attr_f(const std::string& n, float def) const {
  auto* a = attr(n);
  return a && a->kind == Attribute::Kind::Float ? a->f : def;
}
std::string Node::attr_s(const std::string& n, const std::string& def) const {
  auto* a = attr(n);
  return a && a->kind == Attribute::Kind::String ? a->s : def;
}
std::vector<int64_t> Node::attr_ints(const std::string& n) const {
  auto* a = attr(n);
  return a && a->kind == Attribute::Kind::Ints ? a->ints : std::vector<int64_t>{};
}
std::vector<int> Node::subgraphs() const {
  std::vector<int> g;
  for (const auto& a : attrs)
    if (a.kind == Attribute::Kind::Graph && a.graph >= 0) g.push_back(a.graph);
  return g;
}

const TensorInfo* Graph::find(const std::string& n) const {
  auto it = tensors.find(n);
  return it == tensors.end() ? nullptr : &it->second;
}

const TensorInfo* Model::find_tensor(int g, const std::string& n) const {
  for (int cur = g; cur >= 0 && cur < static_cast<int>(graphs.size()); cur = graphs[cur].parent_graph)
    if (auto* t = graphs[cur].find(n)) return t;
  return nullptr;
}

const Initializer* Model::find_initializer(int g, const std::string& n) const {
  for (int cur = g; cur >= 0 && cur < static_cast<int>(graphs.size()); cur = graphs[cur].parent_graph) {
    auto it = graphs[cur].initializers.find(n);
    if (it != graphs[cur].initializers.end()) return &initializers[it->second];
  }
  return nullptr;
}

}  // namespace rooflens
