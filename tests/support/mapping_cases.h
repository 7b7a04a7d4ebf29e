#pragma once
// Hand-built graphs for the mapper's tests: nodes shaped like a runtime's optimized dumps, and the mapping invariant.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mapping/layer_map.h"

namespace rooflens::testing {

using Node = GraphView::Node;

inline Node node(std::string name, std::string op, std::vector<std::string> in, std::vector<std::string> out,
                 std::string domain = "", std::string activation = "") {
  Node n{std::move(name), std::move(op), std::move(domain), std::move(in), std::move(out), {}};
  if (!activation.empty()) n.attributes["activation"] = std::move(activation);
  return n;
}

inline int index_of(const GraphView& g, const std::string& name) {
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].name == name) return static_cast<int>(i);
  ADD_FAILURE() << "no node named " << name;
  return -1;
}

// Names of the original nodes a layer owns, in original order.
inline std::vector<std::string> owned_names(const GraphView& original, const LayerMapping& m, int layer) {
  std::vector<std::string> out;
  for (int o : m.layers.at(static_cast<size_t>(layer)).owned) out.push_back(original.nodes.at(static_cast<size_t>(o)).name);
  return out;
}

// The mapping invariant: owner[] and the layers' owned lists agree, each original node appears in exactly one
// owned list, and a node appears in none exactly when it has a fate "folded" or "eliminated".
inline void expect_partition(const GraphView& original, const GraphView& optimized, const LayerMapping& m) {
  ASSERT_EQ(m.layers.size(), optimized.nodes.size());
  ASSERT_EQ(m.owner.size(), original.nodes.size());
  ASSERT_EQ(m.fate.size(), original.nodes.size());
  std::vector<int> count(original.nodes.size(), 0);
  for (size_t l = 0; l < m.layers.size(); ++l)
    for (int o : m.layers[l].owned) {
      ASSERT_GE(o, 0);
      ASSERT_LT(static_cast<size_t>(o), original.nodes.size());
      ++count[static_cast<size_t>(o)];
      EXPECT_EQ(m.owner[static_cast<size_t>(o)], static_cast<int>(l)) << original.nodes[static_cast<size_t>(o)].name;
    }
  for (size_t o = 0; o < original.nodes.size(); ++o) {
    const std::string& name = original.nodes[o].name;
    if (count[o] == 0) {
      EXPECT_EQ(m.owner[o], -1) << name;
      EXPECT_TRUE(m.fate[o] == "folded" || m.fate[o] == "eliminated") << name << ": fate '" << m.fate[o] << "'";
    } else {
      EXPECT_EQ(count[o], 1) << name << " is owned by several layers";
      EXPECT_EQ(m.fate[o], "") << name;
    }
  }
}

}  // namespace rooflens::testing
