#pragma once
// Shape resolution: user overrides, then per-node inference (rooflens' own shape functions first, libonnx's
// official schemas otherwise), with integer value propagation for Shape->Gather->Concat->Reshape chains.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rooflens {

struct ShapeOverrides {
  std::map<std::string, std::vector<int64_t>> shapes;  // --shape NAME:1x3x224x224
  std::map<std::string, int64_t> dims;                 // --dim batch=8
  std::optional<int64_t> batch;                        // --batch N (defaults to 1 for dynamic leading dims)
};

// Parses "NAME:1x3x224x224" (the name may itself contain ':'; the last ':' splits). Throws UsageError.
std::pair<std::string, std::vector<int64_t>> parse_shape_override(const std::string& text);
// Parses "batch=8". Throws UsageError.
std::pair<std::string, int64_t> parse_dim_override(const std::string& text);

}  // namespace rooflens
