#pragma once
// TensorRT's layer names, for the mapper (mapping/rules.h) and for classifying layers of a profile-only import.
//
//   "A + B + C"                                   a fused layer: computes A, B and C (weights' names among them)
//   "PWN(A, PWN(B, C))"                           a pointwise fusion of A, B, C
//   "{ForeignNode[first...last]}"                 a Myelin (or DLA) region: every node from first to last
//   "{a,b,c}"                                     a DLA subgraph
//   "Reformatting CopyNode for Input Tensor 0 to X", "X input reformatter 0", "T copy"
//                                                 layout and copy layers TensorRT inserted for X / tensor T
//   "QuantizeLinear_7_quantize_scale_node"        a Q/DQ node as TensorRT 8.x names it
//   "..._myl3_12", "(Unnamed Layer* 850) [Shuffle]", "[profile 1]"   TensorRT's own suffixes and internal layers
#include <string>
#include <vector>

#include "mapping/rules.h"

namespace rooflens::importers::trt {

const MappingRules& mapping_rules();

// What TensorRT inserted a layer for, from its name: "reformat" (a reformatter or CopyNode), "copy" (a tensor
// copy), "" (one of the network's own layers).
std::string inserted_for(const std::string& layer_name);

// The parts a layer name lists, in order, with TensorRT's suffixes undone (spans as "first...last").
std::vector<std::string> name_parts(const std::string& layer_name);

}  // namespace rooflens::importers::trt
