#pragma once
// The mapping invariants every profile report must keep, whatever runtime made it: every kernel maps to at least
// one of the user's ONNX nodes, every node is in exactly one layer or has a fate (folded, eliminated), and the
// layers' FLOPs plus the unowned nodes' FLOPs are the model's.
#include <cstdint>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rooflens::testing {

// Returns the FLOPs of the nodes the runtime folded (computed once at inference session creation).
inline uint64_t expect_mapping_invariants(const nlohmann::json& rep, const std::string& what, size_t run_index = 0) {
  using json = nlohmann::json;
  const json& run = rep["runs"][run_index];
  std::map<std::string, uint64_t> node_flops;
  for (const auto& n : rep["model"]["analysis"]["nodes"])
    if (n["graph"] == "main") node_flops[n["name"].get<std::string>()] = n["flops"].get<uint64_t>();
  std::map<std::string, int> owners;
  uint64_t layer_flops = 0;
  EXPECT_EQ(run["unmapped_kernels"].get<int64_t>(), 0) << what;
  for (const auto& l : run["layers"]) {
    EXPECT_FALSE(l["onnx_nodes"].empty()) << what << ": kernel " << l["name"] << " maps to no ONNX node";
    layer_flops += l["flops"].get<uint64_t>();
    if (l["alias"].get<bool>()) {
      EXPECT_EQ(l["flops"].get<uint64_t>(), 0u);
      continue;
    }
    for (const auto& n : l["onnx_nodes"]) ++owners[n.get<std::string>()];
  }
  uint64_t unowned_flops = 0, folded_flops = 0;
  for (const auto& u : run["unowned"]) {
    std::string fate = u["fate"];
    EXPECT_TRUE(fate == "folded" || fate == "eliminated") << fate;
    ++owners[u["name"].get<std::string>()];
    unowned_flops += node_flops[u["name"].get<std::string>()];
    if (fate == "folded") folded_flops += node_flops[u["name"].get<std::string>()];
  }
  for (const auto& [name, flops] : node_flops)
    EXPECT_EQ(owners[name], 1) << what << ": node " << name << " is in " << owners[name] << " layers/fates";
  EXPECT_EQ(owners.size(), node_flops.size()) << what << ": layers name nodes the model does not have";
  EXPECT_EQ(layer_flops + unowned_flops, run["flops"].get<uint64_t>()) << what;
  EXPECT_EQ(run["flops"].get<uint64_t>(), rep["model"]["analysis"]["totals"]["flops"].get<uint64_t>()) << what;
  EXPECT_GT(layer_flops, 0u) << what;
  return folded_flops;
}

}  // namespace rooflens::testing
