// Topological order of a graph's nodes (ONNX requires it, but real files violate it) and cycle detection:
// a cycle is a one-line error naming a node on it, instead of an endless loop later.
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include <onnx/onnx_pb.h>

#include "core/errors.h"

namespace rooflens {

std::vector<int> topological_order(const onnx::GraphProto& g, const std::unordered_set<std::string>& available,
                                   const std::string& file) {
  const int n = g.node_size();
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < n; ++i)
    for (const auto& out : g.node(i).output())
      if (!out.empty() && !available.count(out)) producer.emplace(out, i);

  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i) {
    std::unordered_set<int> deps;
    for (const auto& in : g.node(i).input()) {
      auto it = producer.find(in);
      if (!in.empty() && it != producer.end()) deps.insert(it->second);
    }
    // Subgraph bodies may read values of the enclosing graph: those are dependencies too.
    for (const auto& a : g.node(i).attribute()) {
      auto scan = [&](const onnx::GraphProto& sg) {
        for (const auto& sn : sg.node())
          for (const auto& in : sn.input())
            if (auto it = producer.find(in); it != producer.end()) deps.insert(it->second);
      };
      if (a.has_g()) scan(a.g());
      for (const auto& sg : a.graphs()) scan(sg);
    }
    deps.erase(i);  // self-reads are caught below as a cycle of length one
    for (const auto& in : g.node(i).input())
      if (auto it = producer.find(in); !in.empty() && it != producer.end() && it->second == i) {
        std::string name = g.node(i).name().empty() ? g.node(i).op_type() : g.node(i).name();
        throw UserError(file + ": cyclic graph — node '" + name + "' reads its own output '" + in +
                        "'; the file is corrupted or was not exported as a DAG");
      }
    pending[i] = static_cast<int>(deps.size());
    for (int d : deps) consumers[d].push_back(i);
  }

  std::vector<int> order;
  order.reserve(n);
  // Keep the file's order among ready nodes, so reports list nodes as the author wrote them.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(i);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int c : consumers[i])
      if (--pending[c] == 0) ready.push(c);
  }
  if (static_cast<int>(order.size()) != n) {
    for (int i = 0; i < n; ++i)
      if (pending[i] > 0) {
        std::string name = g.node(i).name().empty() ? g.node(i).op_type() : g.node(i).name();
        throw UserError(file + ": cyclic graph — node '" + name + "' (" + g.node(i).op_type() +
                        ") depends on its own output through a cycle; the file is corrupted or not a DAG");
      }
  }
  return order;
}

}  // namespace rooflens
