#pragma once
// The shape-value evaluator: computes the outputs of the integer / shape sub-computations of a graph (Shape, Gather,
// Div, Cast, Concat, Range, Where, ...) from known input values, so the Reshape targets, Pad amounts, Resize sizes
// and If conditions they feed are known statically. One function per op in a registry (value_ops_*.cpp).
//
// Rules every op function follows:
//  * never allocate from a value read in the file without a bound: an output larger than kMaxValueElements is
//    not computed (nullopt), whatever its dims claim;
//  * integer arithmetic is overflow-checked, division by zero and other undefined cases throw EvalError, which the
//    inference turns into a note ("value not computed at node N: division by zero") — never a crash;
//  * an output that cannot be computed is nullopt; partially known outputs carry unknown elements.
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/graph.h"
#include "model/value.h"

namespace rooflens {

struct EvalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Symbolic dims rooflens wrote itself ("batch*197") back to their expressions; other names are plain symbols.
using SymTable = std::unordered_map<std::string, SymExpr>;

struct EvalInput {
  const Node* node = nullptr;
  const SymTable* syms = nullptr;
  std::vector<const ShapeValue*> values;  // known input values (nullptr: unknown or omitted)
  std::vector<const TensorInfo*> types;   // input types as resolved so far (nullptr: unknown or omitted)
  std::vector<DType> out_dtypes;          // output element types inferred for the node (Undefined when unknown)
  // Tensor attributes with their contents (Constant's value, ConstantOfShape's value), when small enough.
  std::vector<std::pair<std::string, ShapeValue>> attr_values;

  const ShapeValue* value(size_t i) const { return i < values.size() ? values[i] : nullptr; }
  const TensorInfo* type(size_t i) const { return i < types.size() ? types[i] : nullptr; }
  bool given(size_t i) const { return node && i < node->inputs.size() && !node->inputs[i].empty(); }
  const ShapeValue* attr_value(const std::string& name) const {
    for (const auto& [n, v] : attr_values)
      if (n == name) return &v;
    return nullptr;
  }
};

using EvalOutputs = std::vector<std::optional<ShapeValue>>;
using EvalFn = std::function<EvalOutputs(const EvalInput&)>;

class ValueOpRegistry {
 public:
  // Default-domain ops only: shape arithmetic is written with standard ops.
  void add(const std::string& op, EvalFn fn);
  const EvalFn* find(const std::string& domain, const std::string& op) const;
  std::vector<std::string> ops() const;  // sorted
  static const ValueOpRegistry& builtin();  // built once, immutable

 private:
  std::vector<std::pair<std::string, EvalFn>> entries_;  // sorted by op
};

void register_shape_value_ops(ValueOpRegistry& r);  // value_ops_shape.cpp: Shape, Gather, Concat, Slice, Range ...
void register_math_value_ops(ValueOpRegistry& r);   // value_ops_math.cpp: Add ... Pow, comparisons, Where, Reduce*

// Helpers shared by the value_ops_*.cpp files.
namespace value_util {
// A value of dtype t and dims with every element unknown; nullopt when dims are negative or hold more than
// kMaxValueElements elements (nothing is allocated then).
std::optional<ShapeValue> sized(DType t, std::vector<int64_t> dims);
// Axis normalised against rank (negative counts from the end); throws EvalError when out of range.
size_t axis_of(int64_t axis, size_t rank, const char* what);
// Row-major strides of dims.
std::vector<int64_t> strides_of(const std::vector<int64_t>& dims);
// The integer elements of value v (all must be Int); throws EvalError naming `what` otherwise.
std::vector<int64_t> int_list(const ShapeValue& v, const char* what);
// Numpy broadcast of two concrete shapes; throws EvalError when incompatible, nullopt when too large.
std::optional<std::vector<int64_t>> broadcast_dims(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
// Index of element `out_index` of a broadcast result in an operand of shape `dims`.
int64_t broadcast_index(int64_t out_index, const std::vector<int64_t>& out_dims, const std::vector<int64_t>& dims);
// A dim as a value element: known as Int, symbolic as Sym (an expression from `syms`, else a plain symbol),
// otherwise unknown.
Elem elem_of_dim(const Dim& d, const SymTable* syms);
}  // namespace value_util

}  // namespace rooflens
