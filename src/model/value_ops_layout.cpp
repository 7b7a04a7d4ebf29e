// Value functions of the indexing and layout ops: Gather, GatherElements, Slice, Concat, Split, Squeeze,
// Unsqueeze, Reshape, Flatten, Transpose. They move elements of known values around; symbolic elements move
// with them, so [batch, 197, 768] sliced or gathered stays symbolic where it should.
#include <algorithm>

#include "model/value_eval.h"

namespace rooflens {

namespace value_ops_layout {  // this table's Row, kRows and helpers: another table's are spelled the same
using namespace value_util;
namespace {

using Out = EvalOutputs;

Out one(std::optional<ShapeValue> v) {
  Out o;
  o.push_back(std::move(v));
  return o;
}

// An axes/split-style list from input `i` (from `opset_input` on) or from attribute `attr` (older opsets);
// nullopt when given as an input whose value is unknown, an empty list when given nowhere.
std::optional<std::vector<int64_t>> list_arg(const EvalInput& in, size_t i, int opset_input, const char* attr) {
  if (in.node->opset >= opset_input) {
    if (!in.given(i)) return std::vector<int64_t>{};
    const ShapeValue* v = in.value(i);
    if (!v) return std::nullopt;
    return int_list(*v, attr);
  }
  return in.node->attr_ints(attr);
}

Out gather(const EvalInput& in) {
  const ShapeValue *x = in.value(0), *idx = in.value(1);
  if (!x || !idx) return one(std::nullopt);
  const size_t axis = axis_of(in.node->attr_i("axis", 0), x->dims.size(), "Gather axis");
  const auto indices = int_list(*idx, "Gather indices");
  std::vector<int64_t> dims(x->dims.begin(), x->dims.begin() + static_cast<std::ptrdiff_t>(axis));
  dims.insert(dims.end(), idx->dims.begin(), idx->dims.end());
  dims.insert(dims.end(), x->dims.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x->dims.end());
  auto v = sized(x->dtype, dims);
  if (!v) return one(std::nullopt);
  const int64_t n = x->dims[axis];
  int64_t outer = 1, inner = 1;
  for (size_t a = 0; a < axis; ++a) outer *= x->dims[a];
  for (size_t a = axis + 1; a < x->dims.size(); ++a) inner *= x->dims[a];
  size_t o = 0;
  for (int64_t b = 0; b < outer; ++b)
    for (int64_t k : indices) {
      if (k < -n || k >= n) throw EvalError("Gather index " + std::to_string(k) + " out of range [" + std::to_string(-n) + ", " + std::to_string(n) + ")");
      const int64_t j = k < 0 ? k + n : k;
      for (int64_t c = 0; c < inner; ++c) v->elems[o++] = x->elems[static_cast<size_t>((b * n + j) * inner + c)];
    }
  return one(std::move(v));
}

Out gather_elements(const EvalInput& in) {
  const ShapeValue *x = in.value(0), *idx = in.value(1);
  if (!x || !idx) return one(std::nullopt);
  if (x->dims.size() != idx->dims.size()) throw EvalError("GatherElements indices differ in rank from the data");
  const size_t axis = axis_of(in.node->attr_i("axis", 0), x->dims.size(), "GatherElements axis");
  const auto indices = int_list(*idx, "GatherElements indices");
  auto v = sized(x->dtype, idx->dims);
  const auto in_strides = strides_of(x->dims), out_strides = strides_of(idx->dims);
  const int64_t n = x->dims[axis];
  for (size_t i = 0; i < v->elems.size(); ++i) {
    int64_t src = 0;
    for (size_t a = 0; a < idx->dims.size(); ++a) {
      int64_t coord = static_cast<int64_t>(i) / out_strides[a] % idx->dims[a];
      if (a == axis) {
        const int64_t k = indices[i];
        if (k < -n || k >= n) throw EvalError("GatherElements index " + std::to_string(k) + " out of range");
        coord = k < 0 ? k + n : k;
      } else if (coord >= x->dims[a]) {
        throw EvalError("GatherElements indices larger than the data");
      }
      src += coord * in_strides[a];
    }
    v->elems[i] = x->elems[static_cast<size_t>(src)];
  }
  return one(std::move(v));
}

// Slice: opset 1-9 reads starts/ends/axes from attributes, 10+ from inputs (with steps). Bounds are clamped as
// ONNX specifies; arithmetic is done in 128 bits, so INT64_MIN/INT64_MAX ends cannot overflow.
Out slice(const EvalInput& in) {
  const ShapeValue* x = in.value(0);
  if (!x) return one(std::nullopt);
  const bool from_inputs = in.node->opset >= 10;
  auto starts = from_inputs ? list_arg(in, 1, 10, "starts") : in.node->attr_ints("starts");
  auto ends = from_inputs ? list_arg(in, 2, 10, "ends") : in.node->attr_ints("ends");
  auto axes = from_inputs ? list_arg(in, 3, 10, "axes") : in.node->attr_ints("axes");
  auto steps = from_inputs ? list_arg(in, 4, 10, "steps") : std::vector<int64_t>{};
  if (!starts || !ends || !axes || !steps) return one(std::nullopt);
  if (starts->size() != ends->size()) throw EvalError("Slice starts and ends differ in length");
  const size_t rank = x->dims.size();
  if (axes->empty())
    for (size_t i = 0; i < starts->size(); ++i) axes->push_back(static_cast<int64_t>(i));
  if (steps->empty()) steps->assign(starts->size(), 1);
  if (axes->size() != starts->size() || steps->size() != starts->size()) throw EvalError("Slice arguments differ in length");
  std::vector<int64_t> first(rank, 0), step(rank, 1), dims = x->dims;
  for (size_t k = 0; k < starts->size(); ++k) {
    const size_t a = axis_of((*axes)[k], rank, "Slice axis");
    const __int128 d = x->dims[a], st = (*steps)[k];
    if (st == 0) throw EvalError("Slice step 0");
    __int128 s = (*starts)[k], e = (*ends)[k];
    if (s < 0) s += d;
    if (e < 0) e += d;
    if (st > 0) {
      s = std::clamp<__int128>(s, 0, d);
      e = std::clamp<__int128>(e, 0, d);
    } else {
      s = std::clamp<__int128>(s, 0, d - 1);
      e = std::clamp<__int128>(e, -1, d - 1);
    }
    const __int128 span = st > 0 ? e - s : s - e, mag = st > 0 ? st : -st;
    dims[a] = span <= 0 ? 0 : static_cast<int64_t>((span + mag - 1) / mag);
    first[a] = static_cast<int64_t>(s);
    step[a] = static_cast<int64_t>(st);
  }
  auto v = sized(x->dtype, dims);
  const auto in_strides = strides_of(x->dims), out_strides = strides_of(dims);
  for (size_t i = 0; i < v->elems.size(); ++i) {
    int64_t src = 0;
    for (size_t a = 0; a < rank; ++a)
      src += (first[a] + static_cast<int64_t>(i) / out_strides[a] % dims[a] * step[a]) * in_strides[a];
    v->elems[i] = x->elems[static_cast<size_t>(src)];
  }
  return one(std::move(v));
}

Out concat(const EvalInput& in) {
  std::vector<const ShapeValue*> parts;
  for (size_t i = 0; i < in.node->inputs.size(); ++i) {
    if (!in.given(i)) continue;
    if (!in.value(i)) return one(std::nullopt);
    parts.push_back(in.value(i));
  }
  if (parts.empty()) return one(std::nullopt);
  const size_t rank = parts[0]->dims.size();
  const size_t axis = axis_of(in.node->attr_i("axis", 0), rank, "Concat axis");
  std::vector<int64_t> dims = parts[0]->dims;
  dims[axis] = 0;
  for (const ShapeValue* p : parts) {
    if (p->dims.size() != rank) throw EvalError("Concat inputs differ in rank");
    for (size_t a = 0; a < rank; ++a)
      if (a != axis && p->dims[a] != dims[a]) throw EvalError("Concat inputs differ outside the axis");
    dims[axis] += p->dims[axis];  // each part is bounded, and so is their count
  }
  auto v = sized(parts[0]->dtype, dims);
  if (!v) return one(std::nullopt);
  int64_t outer = 1;
  for (size_t a = 0; a < axis; ++a) outer *= dims[a];
  size_t o = 0;
  for (int64_t b = 0; b < outer; ++b)
    for (const ShapeValue* p : parts) {
      const int64_t chunk = p->count() / std::max<int64_t>(outer, 1);
      for (int64_t c = 0; c < chunk; ++c) v->elems[o++] = p->elems[static_cast<size_t>(b * chunk + c)];
    }
  return one(std::move(v));
}

Out split(const EvalInput& in) {
  const ShapeValue* x = in.value(0);
  const size_t outs = in.node->outputs.size();
  if (!x || outs == 0) return Out(outs);
  const size_t axis = axis_of(in.node->attr_i("axis", 0), x->dims.size(), "Split axis");
  auto sizes = list_arg(in, 1, 13, "split");
  if (!sizes) return Out(outs);
  const int64_t d = x->dims[axis];
  if (sizes->empty()) {
    // Equal parts; from opset 18 num_outputs allows a smaller last part.
    const auto n = static_cast<int64_t>(outs);
    const int64_t part = (d + n - 1) / n;
    for (int64_t k = 0; k < n; ++k) sizes->push_back(std::clamp<int64_t>(d - k * part, 0, part));
    if (in.node->opset < 18 && d % n != 0) throw EvalError("Split of " + std::to_string(d) + " into " + std::to_string(n) + " equal parts");
  }
  if (sizes->size() != outs) throw EvalError("Split sizes do not match the outputs");
  int64_t total = 0;
  for (auto s : *sizes) {
    if (s < 0) throw EvalError("negative Split size");
    total += s;  // each s was read from a bounded value, so the sum of a few cannot overflow
    if (total > d) break;
  }
  if (total != d) throw EvalError("Split sizes do not add up to the dim");
  int64_t outer = 1, inner = 1;
  for (size_t a = 0; a < axis; ++a) outer *= x->dims[a];
  for (size_t a = axis + 1; a < x->dims.size(); ++a) inner *= x->dims[a];
  Out result;
  int64_t offset = 0;
  for (int64_t s : *sizes) {
    std::vector<int64_t> dims = x->dims;
    dims[axis] = s;
    auto v = sized(x->dtype, dims);
    size_t o = 0;
    for (int64_t b = 0; b < outer; ++b)
      for (int64_t j = 0; j < s * inner; ++j) v->elems[o++] = x->elems[static_cast<size_t>((b * d + offset) * inner + j)];
    offset += s;
    result.push_back(std::move(v));
  }
  return result;
}

ShapeValue reshaped(const ShapeValue& x, std::vector<int64_t> dims) {
  ShapeValue v = x;
  v.dims = std::move(dims);
  return v;
}

Out squeeze(const EvalInput& in) {
  const ShapeValue* x = in.value(0);
  if (!x) return one(std::nullopt);
  auto axes = list_arg(in, 1, 13, "axes");
  if (!axes) return one(std::nullopt);
  std::vector<bool> drop(x->dims.size(), false);
  for (auto a : *axes) {
    const size_t k = axis_of(a, x->dims.size(), "Squeeze axis");
    if (x->dims[k] != 1) throw EvalError("Squeeze of a dim that is not 1");
    drop[k] = true;
  }
  std::vector<int64_t> dims;
  for (size_t k = 0; k < x->dims.size(); ++k)
    if (axes->empty() ? x->dims[k] != 1 : !drop[k]) dims.push_back(x->dims[k]);
  return one(reshaped(*x, dims));
}

Out unsqueeze(const EvalInput& in) {
  const ShapeValue* x = in.value(0);
  if (!x) return one(std::nullopt);
  auto axes = list_arg(in, 1, 13, "axes");
  if (!axes) return one(std::nullopt);
  const size_t rank = x->dims.size() + axes->size();
  std::vector<bool> added(rank, false);
  for (auto a : *axes) {
    const size_t k = axis_of(a, rank, "Unsqueeze axis");
    if (added[k]) throw EvalError("Unsqueeze axis repeated");
    added[k] = true;
  }
  std::vector<int64_t> dims;
  size_t src = 0;
  for (size_t k = 0; k < rank; ++k) dims.push_back(added[k] ? 1 : x->dims[src++]);
  return one(reshaped(*x, dims));
}

Out reshape(const EvalInput& in) {
  const ShapeValue* x = in.value(0);
  if (!x) return one(std::nullopt);
  std::vector<int64_t> target;
  if (in.node->opset >= 5) {
    if (!in.value(1)) return one(std::nullopt);
    target = int_list(*in.value(1), "Reshape's shape");
  } else {
    target = in.node->attr_ints("shape");
  }
  const bool allow_zero = in.node->attr_i("allowzero", 0) != 0;
  int64_t known = 1;
  int infer = -1;
  for (size_t k = 0; k < target.size(); ++k) {
    if (target[k] == 0 && !allow_zero) {
      if (k >= x->dims.size()) throw EvalError("Reshape copies a dim the input does not have");
      target[k] = x->dims[k];
    }
    if (target[k] == -1) {
      if (infer >= 0) throw EvalError("Reshape with two -1 dims");
      infer = static_cast<int>(k);
      continue;
    }
    if (target[k] < 0) throw EvalError("negative dim " + std::to_string(target[k]) + " in Reshape's shape");
    if (__builtin_mul_overflow(known, target[k], &known)) throw EvalError("Reshape's shape overflows");
  }
  if (infer >= 0) {
    if (known == 0) throw EvalError("Reshape cannot infer a -1 dim next to a 0 dim");
    target[static_cast<size_t>(infer)] = x->count() / known;
    known *= target[static_cast<size_t>(infer)];
  }
  if (known != x->count()) throw EvalError("Reshape to a shape of another element count");
  return one(reshaped(*x, target));
}

Out flatten(const EvalInput& in) {
  const ShapeValue* x = in.value(0);
  if (!x) return one(std::nullopt);
  const auto rank = static_cast<int64_t>(x->dims.size());
  int64_t axis = in.node->attr_i("axis", 1);
  if (axis < -rank || axis > rank) throw EvalError("Flatten axis out of range");
  if (axis < 0) axis += rank;
  int64_t a = 1, b = 1;
  for (int64_t k = 0; k < rank; ++k) (k < axis ? a : b) *= x->dims[static_cast<size_t>(k)];
  return one(reshaped(*x, {a, b}));
}

Out transpose(const EvalInput& in) {
  const ShapeValue* x = in.value(0);
  if (!x) return one(std::nullopt);
  const size_t rank = x->dims.size();
  std::vector<int64_t> perm = in.node->attr_ints("perm");
  if (perm.empty())
    for (size_t k = 0; k < rank; ++k) perm.push_back(static_cast<int64_t>(rank - 1 - k));
  if (perm.size() != rank) throw EvalError("Transpose perm differs from the rank");
  std::vector<bool> seen(rank, false);
  std::vector<int64_t> dims(rank);
  for (size_t k = 0; k < rank; ++k) {
    const size_t p = axis_of(perm[k], rank, "Transpose perm entry");
    if (seen[p]) throw EvalError("Transpose perm repeats an axis");
    seen[p] = true;
    perm[k] = static_cast<int64_t>(p);
    dims[k] = x->dims[p];
  }
  auto v = sized(x->dtype, dims);
  const auto in_strides = strides_of(x->dims), out_strides = strides_of(dims);
  for (size_t i = 0; i < v->elems.size(); ++i) {
    int64_t src = 0;
    for (size_t k = 0; k < rank; ++k)
      src += static_cast<int64_t>(i) / out_strides[k] % dims[k] * in_strides[static_cast<size_t>(perm[k])];
    v->elems[i] = x->elems[static_cast<size_t>(src)];
  }
  return one(std::move(v));
}

}  // namespace
}  // namespace value_ops_layout

void register_layout_value_ops(ValueOpRegistry& r) {
  using namespace value_ops_layout;
  r.add("Gather", gather);
  r.add("GatherElements", gather_elements);
  r.add("Slice", slice);
  r.add("Concat", concat);
  r.add("Split", split);
  r.add("Squeeze", squeeze);
  r.add("Unsqueeze", unsqueeze);
  r.add("Reshape", reshape);
  r.add("Flatten", flatten);
  r.add("Transpose", transpose);
}

}  // namespace rooflens
