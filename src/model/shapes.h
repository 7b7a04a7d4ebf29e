#pragma once
// Shape resolution: user overrides, then per-node inference (rooflens' own shape functions first, libonnx's
// official schemas otherwise) with the shape-value evaluator computing Shape->Gather->Div->Concat->Reshape chains,
// If conditions and Loop trip counts (model/value_eval.h).
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
  // --value sr=16000, --value axes=0,2: contents of scalar or small 1-D inputs that steer shapes or branches.
  // Integers beyond 2^53 are refused when parsed, so a double holds every value exactly.
  std::map<std::string, std::vector<double>> values;
};

// Parses "NAME:1x3x224x224" (the name may itself contain ':'; the last ':' splits). Throws UsageError.
std::pair<std::string, std::vector<int64_t>> parse_shape_override(const std::string& text);
// Parses "batch=8". Throws UsageError.
std::pair<std::string, int64_t> parse_dim_override(const std::string& text);
// Parses "sr=16000" or "scales=1,1,2,2" (numbers: integers or decimals). Throws UsageError.
std::pair<std::string, std::vector<double>> parse_value_override(const std::string& text);

}  // namespace rooflens
