// Default-domain ops whose shape rules changed in opsets 18-21. libonnx 1.12 stops at opset 17 and would
// quietly apply the old rule (e.g. read Reduce* axes from an attribute that no longer exists and reduce over
// everything), so we register the new rule at the opset that introduced it; older opsets stay with libonnx.
// Less common ops changed in the same range are in shape_ops_opset18_new_versions.cpp.
#include <algorithm>
#include <array>
#include <cmath>

#include "model/shape_ops.h"

namespace rooflens {

namespace shape_ops_opset18_changed {  // this table's Row, kRows and helpers: another table's are spelled the same
using namespace shape_util;  // shared shape helpers, declared in model/shape_ops.h
namespace {

using Outs = std::vector<TensorInfo>;

const TensorInfo* in(const ShapeInput& s, size_t i) { return s.has(i) ? s.in[i] : nullptr; }

// A 1-D input given as an empty tensor means "not given" for Reduce axes, Resize scales/sizes.
bool given_nonempty(const ShapeInput& s, size_t i) {
  if (!input_given(s, i)) return false;
  if (const auto& v = s.value(i)) return !v->empty();
  return dim_value(in(s, i), 0) != 0;
}

// Resolves axes against rank; nullopt when any is out of range (invalid model: we refuse to guess).
std::optional<std::vector<size_t>> resolve_axes(const std::vector<int64_t>& axes, size_t rank) {
  std::vector<size_t> r;
  for (int64_t a : axes) {
    auto n = normalize_axis(a, rank);
    if (!n) return std::nullopt;
    r.push_back(*n);
  }
  return r;
}

// Reduce* from opset 18 (ReduceSum from 13): axes is optional input 1; an absent/empty axes reduces all dims
// unless noop_with_empty_axes, which makes the op an identity.
void reduce(const ShapeInput& s, Outs& out) {
  const Node& n = node_of(s);
  const TensorInfo* x = in(s, 0);
  if (!x || !x->has_rank) return set_output(out, 0, same_as(x));
  const size_t rank = x->dims.size();
  const bool keep = n.attr_i("keepdims", 1) != 0;
  std::vector<bool> reduced(rank, true);

  if (!given_nonempty(s, 1)) {
    if (n.attr_i("noop_with_empty_axes", 0)) return set_output(out, 0, *x);
  } else if (const auto& axes = s.value(1)) {
    auto resolved = resolve_axes(*axes, rank);
    if (!resolved) return set_output(out, 0, dtype_only(x->dtype));
    reduced.assign(rank, false);
    for (size_t a : *resolved) reduced[a] = true;
  } else {
    // Axes unknown. With keepdims every dim is either itself or 1, so dims known to be 1 stay known;
    // without keepdims the rank still follows from the axes tensor's length (axes are unique).
    if (keep) {
      TensorInfo r = unknown_dims(x->dtype, rank);
      for (size_t i = 0; i < rank; ++i)
        if (x->dims[i].value == 1) r.dims[i] = x->dims[i];
      return set_output(out, 0, r);
    }
    int64_t k = dim_value(in(s, 1), 0);
    if (rank_of(in(s, 1)) != 1 || k < 0 || k > static_cast<int64_t>(rank))
      return set_output(out, 0, dtype_only(x->dtype));
    return set_output(out, 0, unknown_dims(x->dtype, rank - static_cast<size_t>(k)));
  }
  TensorInfo r = unknown_dims(x->dtype, 0);
  for (size_t i = 0; i < rank; ++i) {
    if (!reduced[i]) r.dims.push_back(x->dims[i]);
    else if (keep) r.dims.push_back(Dim{1, {}});
  }
  set_output(out, 0, r);
}

// Split-18: sizes from the optional `split` input, else num_outputs equal chunks of ceil(dim / n), the last
// one smaller.
void split(const ShapeInput& s, Outs& out) {
  const Node& n = node_of(s);
  const TensorInfo* x = in(s, 0);
  if (!x || !x->has_rank) {
    for (size_t i = 0; i < out.size(); ++i) set_output(out, i, same_as(x));
    return;
  }
  auto axis = normalize_axis(n.attr_i("axis", 0), x->dims.size());
  const size_t count = out.size();
  std::vector<int64_t> sizes(count, -1);
  const auto& split_values = s.value(1);
  if (axis && split_values && split_values->size() == count) {
    sizes = *split_values;
  } else if (axis && !input_given(s, 1) && x->dims[*axis].known()) {
    const int64_t d = x->dims[*axis].value;
    const auto parts = n.attr_i("num_outputs", static_cast<int64_t>(count));
    const int64_t chunk = parts > 0 ? (d + parts - 1) / parts : -1;
    for (size_t i = 0; chunk >= 0 && i < count; ++i) {
      int64_t rest = d - chunk * static_cast<int64_t>(i);
      sizes[i] = rest < 0 ? -1 : std::min(chunk, rest);
    }
  }
  for (size_t i = 0; i < count; ++i) {
    TensorInfo r = *x;
    if (axis) r.dims[*axis] = sizes[i] >= 0 ? Dim{sizes[i], {}} : Dim{};
    else r = unknown_dims(x->dtype, x->dims.size());
    set_output(out, i, r);
  }
}

// Pad-18: pads (input 1) as [begin..., end...] for the axes in input 3 (all axes when omitted).
void pad(const ShapeInput& s, Outs& out) {
  const TensorInfo* x = in(s, 0);
  if (!x || !x->has_rank) return set_output(out, 0, same_as(x));
  const size_t rank = x->dims.size();
  std::optional<std::vector<size_t>> axes;
  if (!input_given(s, 3)) {
    axes.emplace();
    for (size_t i = 0; i < rank; ++i) axes->push_back(i);
  } else if (const auto& v = s.value(3)) {
    axes = resolve_axes(*v, rank);
  }
  TensorInfo r = *x;
  const auto& pads = s.value(1);
  if (!axes) return set_output(out, 0, unknown_dims(x->dtype, rank));
  const size_t k = axes->size();
  const bool pads_ok = pads && pads->size() == 2 * k;
  for (size_t i = 0; i < k; ++i) {
    Dim& d = r.dims[(*axes)[i]];
    const int64_t v = pads_ok && d.known() ? d.value + (*pads)[i] + (*pads)[i + k] : -1;
    d = v >= 0 ? Dim{v, {}} : Dim{};  // only padded axes change; the others keep their symbols
  }
  set_output(out, 0, r);
}

// Resize-18: output sizes from `sizes` (input 3) for the axes in attr `axes`, adjusted by
// keep_aspect_ratio_policy; from `scales` (input 2, float, so its values never reach us) the resized axes are
// unknown. Axes not listed keep their size.
void resize(const ShapeInput& s, Outs& out) {
  const Node& n = node_of(s);
  const TensorInfo* x = in(s, 0);
  if (!x || !x->has_rank) return set_output(out, 0, same_as(x));
  const size_t rank = x->dims.size();
  std::optional<std::vector<size_t>> axes;
  if (const auto a = n.attr_ints("axes"); !a.empty()) {
    axes = resolve_axes(a, rank);
  } else {
    axes.emplace();
    for (size_t i = 0; i < rank; ++i) axes->push_back(i);
  }
  if (!axes) return set_output(out, 0, unknown_dims(x->dtype, rank));
  TensorInfo r = *x;
  for (size_t a : *axes) r.dims[a] = Dim{};

  const auto& sizes = s.value(3);
  if (!given_nonempty(s, 3) || !sizes || sizes->size() != axes->size()) return set_output(out, 0, r);
  const std::string policy = n.attr_s("keep_aspect_ratio_policy", "stretch");
  if (policy == "stretch") {
    for (size_t i = 0; i < axes->size(); ++i)
      if ((*sizes)[i] >= 0) r.dims[(*axes)[i]] = Dim{(*sizes)[i], {}};
    return set_output(out, 0, r);
  }
  // not_larger / not_smaller: one common scale (min / max of the per-axis ratios) for all listed axes.
  double scale = policy == "not_larger" ? INFINITY : 0.0;
  for (size_t i = 0; i < axes->size(); ++i) {
    const Dim& d = x->dims[(*axes)[i]];
    if (!d.known() || d.value == 0) return set_output(out, 0, r);
    double ratio = static_cast<double>((*sizes)[i]) / static_cast<double>(d.value);
    scale = policy == "not_larger" ? std::min(scale, ratio) : std::max(scale, ratio);
  }
  for (size_t a : *axes)
    r.dims[a] = Dim{static_cast<int64_t>(std::round(scale * static_cast<double>(x->dims[a].value))), {}};
  set_output(out, 0, r);
}

struct Row { const char* op; int min_opset; FillFn fn; };
constexpr std::array kRows{
    Row{"ReduceSum", 13, reduce},  // axes became an input in 13 for ReduceSum, in 18 for the rest
    Row{"ReduceMean", 18, reduce},
    Row{"ReduceMax", 18, reduce},
    Row{"ReduceMin", 18, reduce},
    Row{"ReduceProd", 18, reduce},
    Row{"ReduceL1", 18, reduce},
    Row{"ReduceL2", 18, reduce},
    Row{"ReduceLogSum", 18, reduce},
    Row{"ReduceLogSumExp", 18, reduce},
    Row{"ReduceSumSquare", 18, reduce},
    Row{"Split", 18, split},
    Row{"Pad", 18, pad},
    Row{"Resize", 18, resize},
};

}  // namespace
}  // namespace shape_ops_opset18_changed

void register_new_opset_shapes(ShapeRegistry& r) {
  using namespace shape_ops_opset18_changed;
  for (const auto& row : kRows) r.add("", row.op, row.min_opset, filled(row.fn));
  register_opset18_new_version_shapes(r);
}

}  // namespace rooflens
