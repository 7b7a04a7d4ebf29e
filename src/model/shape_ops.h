#pragma once
// rooflens' own shape functions, used where libonnx 1.12 has no schema or an outdated one:
// ORT contrib/fused ops (com.microsoft, com.microsoft.nchwc) and default-domain ops whose semantics changed
// after opset 17 (Reduce* axes as input, Split num_outputs, Pad axes, Resize axes, Gelu-20 ...).
// The shape inference (model/shapes.cpp) asks this registry first, then falls back to libonnx's schemas.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/graph.h"
#include "model/value.h"
#include "model/value_eval.h"

namespace rooflens {

struct ShapeInput {
  const Node* node = nullptr;
  std::vector<const TensorInfo*> in;  // nullptr for an omitted optional input or unknown type
  // Known integer contents of inputs (initializers, Constant nodes, shape arithmetic); nullopt if unknown.
  std::vector<std::optional<std::vector<int64_t>>> in_values;
  // The same as the evaluator holds them, symbolic elements included ("[batch*197, 768]"); nullptr if unknown.
  std::vector<ValuePtr> values;
  // Symbolic dims rooflens wrote; a shape function that makes a dim from an expression registers it here.
  SymTable* syms = nullptr;

  bool has(size_t i) const { return i < in.size() && in[i] != nullptr; }
  const std::optional<std::vector<int64_t>>& value(size_t i) const;
};

// Fills `out` (already sized to node->outputs.size(), entries default-constructed) and returns true when
// it determined at least the outputs' types; dims it cannot know stay unknown (value -1).
using ShapeFn = std::function<bool(const ShapeInput&, std::vector<TensorInfo>& out)>;

class ShapeRegistry {
 public:
  // fn applies to nodes of (domain, op) whose imported opset is >= min_opset.
  void add(const std::string& domain, const std::string& op, int min_opset, ShapeFn fn);
  const ShapeFn* find(const std::string& domain, const std::string& op, int opset) const;
  static ShapeRegistry builtin();

 private:
  struct Entry { std::string domain, op; int min_opset; ShapeFn fn; };
  std::vector<Entry> entries_;
};

void register_contrib_shapes(ShapeRegistry& r);   // model/shape_ops_contrib.cpp
void register_new_opset_shapes(ShapeRegistry& r); // model/shape_ops_opset18_changed.cpp (ops changed in opsets 18-21)

// Small helpers shared by shape functions.
TensorInfo same_as(const TensorInfo* t);                       // copy or unknown
TensorInfo with_dtype(TensorInfo t, DType d);
// Numpy-style broadcast of two shapes; unknown dims stay unknown.
TensorInfo broadcast(const TensorInfo& a, const TensorInfo& b);

// ---- Helpers shared by the shape_ops_*.cpp files (not needed by the inference) ----

// Registration split by family so each file stays small: register_contrib_shapes calls the attention, quant
// and nchwc ones; register_new_opset_shapes calls the opset18_new_versions one.
void register_contrib_attention_shapes(ShapeRegistry& r);  // model/shape_ops_attention.cpp
void register_contrib_quant_shapes(ShapeRegistry& r);      // model/shape_ops_quant.cpp
// com.microsoft.nchwc ops. ReorderInput pads channels to MLAS' NCHWc block size, which depends on the CPU
// that ran ORT (8 with AVX2, 16 with AVX-512). block_size 0 = unknown: the padded count is filled only when
// every possible block size gives the same answer. A caller that knows the block size re-registers with it.
void register_nchwc_shapes(ShapeRegistry& r, int64_t block_size);  // model/shape_ops_nchwc.cpp
void register_opset18_new_version_shapes(ShapeRegistry& r);  // model/shape_ops_opset18_new_versions.cpp

// The helpers live in their own namespace so they cannot collide with same-named file-local helpers elsewhere
// in rooflens (analysis/ has its own rank_of, for one) in files that include this header.
namespace shape_util {

// Shape functions are written as "fill the outputs"; filled() turns one into a ShapeFn that reports success
// when output 0 got a type, so no function has to repeat that rule.
using FillFn = void (*)(const ShapeInput&, std::vector<TensorInfo>& out);
ShapeFn filled(FillFn f);
// Writes out[i] only when the node has that output slot (optional outputs may be absent).
void set_output(std::vector<TensorInfo>& out, size_t i, TensorInfo t);
// The node's attributes; an empty node when the caller passed none, so attr lookups give defaults.
const Node& node_of(const ShapeInput& s);
// True when the node names input i, whether or not its type is known ("" marks an omitted input).
bool input_given(const ShapeInput& s, size_t i);
// Resolves a possibly negative axis against rank; nullopt when out of range.
std::optional<size_t> normalize_axis(int64_t axis, size_t rank);
// dtype plus rank with every dim unknown.
TensorInfo unknown_dims(DType d, size_t rank);
// Tensor with only a dtype (rank unknown).
TensorInfo dtype_only(DType d);
// numpy.matmul result shape (rank-1 operands promoted then squeezed); dtype from a.
TensorInfo matmul_shape(const TensorInfo& a, const TensorInfo& b);
// Known dim value or -1; safe for out-of-range i and rank-less tensors.
int64_t dim_value(const TensorInfo* t, size_t i);
// Rank when known, else -1.
int64_t rank_of(const TensorInfo* t);
// A value element as a dim: Int >= 0 known, Sym symbolic (its text registered in `syms`), anything else unknown.
Dim dim_of_elem(const Elem& e, SymTable* syms);
// A dim as an expression: known -> constant, symbolic -> its expression (from `syms` or a plain symbol).
std::optional<SymExpr> expr_of_dim(const Dim& d, const SymTable* syms);

// Sliding-window output sizes (Conv, pooling) per ONNX's kernel_shape/strides/pads/dilations/auto_pad
// rules read from `node`. `in` holds the spatial input dims, `kernel` the window per spatial dim
// (-1 unknown). ceil_mode follows ORT: a last window that would start inside the end padding is dropped.
std::vector<Dim> window_output_dims(const Node& node, const std::vector<Dim>& in,
                                    const std::vector<int64_t>& kernel, bool ceil_mode);
// Conv-like op: X [N, C, spatial...], W [M, C/group, k...] -> [N, M, out spatial...]; kernel from attr
// kernel_shape or W. Shared by Conv-style contrib ops (FusedConv, nchwc Conv, DeformConv).
TensorInfo conv_output(const ShapeInput& s);
// Pool over X's spatial dims (kernel from attr kernel_shape, ceil_mode attr); channels_last means
// [N, spatial..., C]; global pooling gives 1 for every spatial dim.
TensorInfo pool_output(const ShapeInput& s, bool channels_last, bool global);

}  // namespace shape_util

}  // namespace rooflens
