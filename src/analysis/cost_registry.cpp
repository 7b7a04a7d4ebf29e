#include <algorithm>

#include "analysis/cost.h"
#include "analysis/ops_util.h"

namespace rooflens {
namespace {

// "ai.onnx" is the long spelling of the default domain; models use both.
const TensorInfo* at(const std::vector<const TensorInfo*>& v, size_t i) { return i < v.size() ? v[i] : nullptr; }

int64_t elems_of(const TensorInfo* t) { return t ? t->elements() : -1; }

int64_t dim_of(const TensorInfo* t, int d) {
  if (!t || !t->has_rank) return -1;
  const auto r = static_cast<int64_t>(t->dims.size());
  const int64_t k = d < 0 ? d + r : d;
  if (k < 0 || k >= r) return -1;
  return t->dims[static_cast<size_t>(k)].value;
}

size_t rank_of(const TensorInfo* t) { return t && t->has_rank ? t->dims.size() : 0; }

}  // namespace

int64_t CostInput::in_elems(size_t i) const { return elems_of(at(in, i)); }
int64_t CostInput::out_elems(size_t i) const { return elems_of(at(out, i)); }
int64_t CostInput::in_dim(size_t i, int d) const { return dim_of(at(in, i), d); }
int64_t CostInput::out_dim(size_t i, int d) const { return dim_of(at(out, i), d); }
size_t CostInput::in_rank(size_t i) const { return rank_of(at(in, i)); }

void CostRegistry::add(const std::string& domain, const std::string& op, CostFn fn) {
  auto key = std::make_pair(canonical_domain(domain), op);
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const auto& e, const auto& k) { return e.first < k; });
  if (it != entries_.end() && it->first == key) it->second = std::move(fn);  // later registration wins
  else entries_.insert(it, {std::move(key), std::move(fn)});
}

const CostFn* CostRegistry::find(const std::string& domain, const std::string& op) const {
  auto key = std::make_pair(canonical_domain(domain), op);
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const auto& e, const auto& k) { return e.first < k; });
  return it != entries_.end() && it->first == key ? &it->second : nullptr;
}

std::vector<std::pair<std::string, std::string>> CostRegistry::ops() const {
  std::vector<std::pair<std::string, std::string>> v;
  v.reserve(entries_.size());
  for (const auto& e : entries_) v.push_back(e.first);
  return v;  // entries_ is kept sorted
}

CostRegistry CostRegistry::builtin() {
  CostRegistry r;
  register_conv_ops(r);
  register_matmul_ops(r);
  register_elementwise_ops(r);
  register_norm_ops(r);
  register_pool_reduce_ops(r);
  register_shape_ops(r);
  register_rnn_ops(r);
  register_attention_ops(r);
  register_quant_ops(r);
  register_misc_ops(r);
  return r;
}

// ---- helpers shared by the ops_*.cpp files (analysis/ops_util.h) ----
namespace ops {

std::optional<OpWork> need_in(const CostInput& c, std::initializer_list<size_t> idx) {
  for (size_t i : idx) {
    if (c.in_elems(i) >= 0) continue;
    // A nullptr the node names is an unresolved tensor; an empty name is an omitted input.
    const bool named = c.has_in(i) || !c.node || (i < c.node->inputs.size() && !c.node->inputs[i].empty());
    return unknown(named ? "shape of input " + std::to_string(i) + " unresolved"
                         : "input " + std::to_string(i) + " missing");
  }
  return std::nullopt;
}

std::optional<OpWork> need_out(const CostInput& c, std::initializer_list<size_t> idx) {
  for (size_t i : idx)
    if (c.out_elems(i) < 0) return unknown("shape of output " + std::to_string(i) + " unresolved");
  return std::nullopt;
}

std::optional<OpWork> need_dims(std::initializer_list<int64_t> dims, const char* what) {
  for (int64_t d : dims)
    if (d < 0) return unknown(std::string(what) + " unresolved");
  return std::nullopt;
}

CostFn per_output_elem(uint64_t k, size_t out) {
  return [k, out](const CostInput& c) {
    if (auto bad = need_out(c, {out})) return *bad;
    OpWork w;
    w.flops = sat_mul(u(c.out_elems(out)), k);
    return w;
  };
}

CostFn per_input_elem(uint64_t k, size_t in) {
  return [k, in](const CostInput& c) {
    if (auto bad = need_in(c, {in})) return *bad;
    OpWork w;
    w.flops = sat_mul(u(c.in_elems(in)), k);
    return w;
  };
}

CostFn zero_cost(std::string note) {
  return [note = std::move(note)](const CostInput&) {
    OpWork w;
    w.note = note;
    return w;
  };
}

CostFn with_params(CostFn fn, std::vector<int> slots) {
  return [fn = std::move(fn), slots = std::move(slots)](const CostInput& c) {
    OpWork w = fn(c);
    w.param_inputs = slots;
    w.params_explicit = true;
    return w;
  };
}

}  // namespace ops
}  // namespace rooflens
