// ShapeRegistry: a flat table of (domain, op, min_opset) -> shape function, plus the small helpers every
// shape function needs. The table is small (~150 rows) and looked up once per node, so a linear scan is
// simpler than a map and keeps "highest min_opset <= opset" a one-pass rule.
#include <algorithm>

#include "model/shape_ops.h"

namespace rooflens {
namespace {

// ONNX allows both spellings for the default domain; nodes and registrations may use either.
// One merged dim of a numpy broadcast. An unknown dim against a known k > 1 must be k (or the model is
// invalid), so the known side wins; against 1 the unknown side (with its symbol) is the answer.
Dim broadcast_dim(const Dim& a, const Dim& b) {
  if (a.known() && b.known()) {
    if (a.value == b.value || b.value == 1) return a;
    if (a.value == 1) return b;
    return Dim{};  // incompatible: leave unknown rather than invent a size
  }
  if (a.known()) return a.value == 1 ? b : a;
  if (b.known()) return b.value == 1 ? a : b;
  if (!a.symbol.empty() && a.symbol == b.symbol) return a;
  return Dim{};
}

}  // namespace

const std::optional<std::vector<int64_t>>& ShapeInput::value(size_t i) const {
  // Immutable shared "unknown" so callers can hold a reference without checking bounds first.
  static const std::optional<std::vector<int64_t>> kUnknown;
  return i < in_values.size() ? in_values[i] : kUnknown;
}

void ShapeRegistry::add(const std::string& domain, const std::string& op, int min_opset, ShapeFn fn) {
  std::string d = canonical_domain(domain);
  // A later registration for the same key replaces the earlier one, so callers can override a builtin
  // (e.g. re-register nchwc ops once the real block size is known).
  for (auto& e : entries_) {
    if (e.domain == d && e.op == op && e.min_opset == min_opset) {
      e.fn = std::move(fn);
      return;
    }
  }
  entries_.push_back(Entry{std::move(d), op, min_opset, std::move(fn)});
}

const ShapeFn* ShapeRegistry::find(const std::string& domain, const std::string& op, int opset) const {
  std::string d = canonical_domain(domain);
  const Entry* best = nullptr;
  for (const auto& e : entries_)
    if (e.op == op && e.domain == d && e.min_opset <= opset && (!best || e.min_opset > best->min_opset))
      best = &e;
  return best ? &best->fn : nullptr;
}

ShapeRegistry ShapeRegistry::builtin() {
  ShapeRegistry r;
  register_contrib_shapes(r);
  register_new_opset_shapes(r);
  return r;
}

TensorInfo same_as(const TensorInfo* t) { return t ? *t : TensorInfo{}; }

TensorInfo with_dtype(TensorInfo t, DType d) {
  t.dtype = d;
  return t;
}

TensorInfo broadcast(const TensorInfo& a, const TensorInfo& b) {
  TensorInfo r;
  r.dtype = a.dtype != DType::Undefined ? a.dtype : b.dtype;
  if (!a.has_rank || !b.has_rank) return r;
  r.has_rank = true;
  size_t n = std::max(a.dims.size(), b.dims.size());
  r.dims.resize(n);
  for (size_t i = 0; i < n; ++i) {
    // Align from the right; a missing leading dim behaves as 1.
    const Dim one{1, {}};
    const Dim& da = i < n - a.dims.size() ? one : a.dims[i - (n - a.dims.size())];
    const Dim& db = i < n - b.dims.size() ? one : b.dims[i - (n - b.dims.size())];
    r.dims[i] = broadcast_dim(da, db);
  }
  return r;
}

namespace shape_util {

ShapeFn filled(FillFn f) {
  return [f](const ShapeInput& s, std::vector<TensorInfo>& out) {
    f(s, out);
    return !out.empty() && out[0].dtype != DType::Undefined;
  };
}

void set_output(std::vector<TensorInfo>& out, size_t i, TensorInfo t) {
  if (i < out.size()) out[i] = std::move(t);
}

const Node& node_of(const ShapeInput& s) {
  static const Node kEmpty;  // immutable: only ever read, so attr lookups fall back to defaults
  return s.node ? *s.node : kEmpty;
}

bool input_given(const ShapeInput& s, size_t i) {
  if (s.node) return i < s.node->inputs.size() && !s.node->inputs[i].empty();
  return s.has(i) || s.value(i).has_value();
}

std::optional<size_t> normalize_axis(int64_t axis, size_t rank) {
  auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) return std::nullopt;
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

TensorInfo unknown_dims(DType d, size_t rank) {
  TensorInfo t;
  t.dtype = d;
  t.has_rank = true;
  t.dims.resize(rank);
  return t;
}

TensorInfo dtype_only(DType d) {
  TensorInfo t;
  t.dtype = d;
  return t;
}

int64_t dim_value(const TensorInfo* t, size_t i) {
  return t && t->has_rank && i < t->dims.size() ? t->dims[i].value : -1;
}

int64_t rank_of(const TensorInfo* t) {
  return t && t->has_rank ? static_cast<int64_t>(t->dims.size()) : -1;
}

Dim dim_of_elem(const Elem& e, SymTable* syms) {
  if (e.kind == Elem::Kind::Int) return e.i >= 0 ? Dim{e.i, {}} : Dim{};
  if (e.kind != Elem::Kind::Sym) return Dim{};
  std::string text = e.sym->to_string();
  if (syms) syms->emplace(text, *e.sym);
  return Dim{-1, text};
}

std::optional<SymExpr> expr_of_dim(const Dim& d, const SymTable* syms) {
  if (d.known()) return SymExpr::constant(d.value);
  if (d.symbol.empty()) return std::nullopt;
  if (syms)
    if (auto it = syms->find(d.symbol); it != syms->end()) return it->second;
  return SymExpr::symbol(d.symbol);
}

TensorInfo matmul_shape(const TensorInfo& a, const TensorInfo& b) {
  TensorInfo r = dtype_only(a.dtype != DType::Undefined ? a.dtype : b.dtype);
  if (!a.has_rank || !b.has_rank || a.dims.empty() || b.dims.empty()) return r;
  // numpy.matmul: a 1-D A is [1, K] and a 1-D B is [K, 1]; the added dim is removed from the result.
  std::vector<Dim> da = a.dims, db = b.dims;
  bool a_vec = da.size() == 1, b_vec = db.size() == 1;
  if (a_vec) da.insert(da.begin(), Dim{1, {}});
  if (b_vec) db.push_back(Dim{1, {}});
  TensorInfo ba, bb;
  ba.has_rank = bb.has_rank = true;
  ba.dims.assign(da.begin(), da.end() - 2);
  bb.dims.assign(db.begin(), db.end() - 2);
  r.dims = broadcast(ba, bb).dims;
  r.has_rank = true;
  if (!a_vec) r.dims.push_back(da[da.size() - 2]);
  if (!b_vec) r.dims.push_back(db.back());
  return r;
}

}  // namespace shape_util
}  // namespace rooflens
