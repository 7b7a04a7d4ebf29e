#pragma once
// Value bounds for generated integer inputs: token ids must stay inside the vocabulary of the embedding
// table they index, or the runtime rejects the run (Gather out of range).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/graph.h"

namespace rooflens {

// For each integer graph input that reaches the indices of a Gather/GatherElements (directly or
// through Cast/Reshape/Unsqueeze/Squeeze/Flatten/Identity) whose data is an initializer: the exclusive upper
// bound (the smallest gathered axis size). Inputs without such a use are absent.
std::map<std::string, int64_t> integer_input_bounds(const Model& model);

// Everything a backend needs to generate a model's inputs: symbolic dims with the sizes loading gave them,
// the shape of every fully known graph input, the id bounds above, and the inputs given by value.
struct GeneratedInputPlan {
  std::map<std::string, int64_t> dims;
  std::map<std::string, std::vector<int64_t>> shapes;
  std::map<std::string, int64_t> int_input_max;
  std::map<std::string, std::vector<double>> values;  // inputs fed with given contents (--value), not generated
};
GeneratedInputPlan plan_generated_inputs(const Model& model);

}  // namespace rooflens
