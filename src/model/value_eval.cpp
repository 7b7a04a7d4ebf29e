// The value-op registry and the helpers the value_ops_*.cpp files share.
#include "model/value_eval.h"

#include <algorithm>

namespace rooflens {

void ValueOpRegistry::add(const std::string& op, EvalFn fn) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), op,
                             [](const auto& e, const std::string& k) { return e.first < k; });
  if (it != entries_.end() && it->first == op) it->second = std::move(fn);
  else entries_.insert(it, {op, std::move(fn)});
}

const EvalFn* ValueOpRegistry::find(const std::string& domain, const std::string& op) const {
  if (!domain.empty() && domain != "ai.onnx") return nullptr;
  auto it = std::lower_bound(entries_.begin(), entries_.end(), op,
                             [](const auto& e, const std::string& k) { return e.first < k; });
  return it != entries_.end() && it->first == op ? &it->second : nullptr;
}

std::vector<std::string> ValueOpRegistry::ops() const {
  std::vector<std::string> v;
  for (const auto& e : entries_) v.push_back(e.first);
  return v;
}

const ValueOpRegistry& ValueOpRegistry::builtin() {
  static const ValueOpRegistry r = [] {  // immutable after this initialiser
    ValueOpRegistry reg;
    register_shape_value_ops(reg);
    register_math_value_ops(reg);
    return reg;
  }();
  return r;
}

namespace value_util {

std::optional<ShapeValue> sized(DType t, std::vector<int64_t> dims) {
  auto n = bounded_count(dims);
  if (!n) return std::nullopt;
  ShapeValue v;
  v.dtype = t;
  v.dims = std::move(dims);
  v.elems.resize(static_cast<size_t>(*n));
  return v;
}

size_t axis_of(int64_t axis, size_t rank, const char* what) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    throw EvalError(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

std::vector<int64_t> int_list(const ShapeValue& v, const char* what) {
  auto ints = v.ints();
  if (!ints) throw EvalError(std::string(what) + " is not a list of known integers");
  return *ints;
}

std::optional<std::vector<int64_t>> broadcast_dims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> r(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw EvalError("shapes do not broadcast (" + std::to_string(da) + " against " + std::to_string(db) + ")");
    r[i] = da == 1 ? db : da;
  }
  if (!bounded_count(r)) return std::nullopt;
  return r;
}

int64_t broadcast_index(int64_t out_index, const std::vector<int64_t>& out_dims, const std::vector<int64_t>& dims) {
  int64_t index = 0, stride = 1;
  const size_t offset = out_dims.size() - dims.size();
  for (size_t i = out_dims.size(); i-- > 0;) {
    const int64_t coord = out_index % out_dims[i];
    out_index /= out_dims[i];
    if (i < offset) continue;
    const int64_t d = dims[i - offset];
    if (d != 1) index += coord * stride;
    stride *= d;
  }
  return index;
}

Elem elem_of_dim(const Dim& d, const SymTable* syms) {
  if (d.known()) return Elem::integer(d.value);
  if (d.symbol.empty()) return Elem::unknown();
  if (syms)
    if (auto it = syms->find(d.symbol); it != syms->end()) return Elem::symbolic(it->second);
  return Elem::symbolic(SymExpr::symbol(d.symbol));
}

}  // namespace value_util
}  // namespace rooflens
