#pragma once
// ONNX Runtime's names and rewrites, for the mapper (mapping/rules.h).
#include "mapping/rules.h"

namespace rooflens::ort {

// - Rewritten kernels are named after the node or the output tensor they end at, with suffixes: "fused <conv>"
//   (FusedConv), "<tensor>_nchwc" (NCHWc layout), "..._token_N", and "_kernel_time" from profile event names.
// - ReorderInput/ReorderOutput (domain com.microsoft.nchwc) and MemcpyToHost/MemcpyFromHost only move tensors.
// - A kernel found by its name (an NCHWc convolution, whose outputs are renamed) fused a residual Add ("Sum") and
//   the activation its `activation` attribute names.
const MappingRules& mapping_rules();

}  // namespace rooflens::ort
