// Data-movement ops (0 FLOPs: they copy, index or describe tensors; their cost is all in bytes) and the
// resampling ops whose arithmetic is interpolation.
#include <array>
#include <string>

#include "analysis/ops_util.h"

namespace rooflens {
namespace ops_shape_file {  // this file's helpers and using-directive stay its own in a unity batch
namespace {
using namespace ops;

constexpr std::array kMovement{
    "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat", "Split", "Slice", "Gather",
    "GatherElements", "GatherND", "Expand", "Tile", "Pad", "Identity", "Shape", "Size", "NonZero",
    "DepthToSpace", "SpaceToDepth", "Dropout", "OneHot", "Trilu", "ReverseSequence", "Compress", "Unique",
    "EyeLike", "MaxUnpool", "CenterCropPad", "SplitToSequence", "ConcatFromSequence", "SequenceAt",
    "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert", "SequenceLength", "Optional",
    "OptionalGetElement", "OptionalHasElement",
};

// Interpolation FLOPs per output element over r resampled axes: a weighted sum of 2^r (linear) or 4^r
// (cubic) neighbours = one multiply and one add per neighbour. Nearest copies: 0.
std::optional<uint64_t> interp_per_out(const std::string& mode, size_t r) {
  if (mode == "nearest") return 0;
  const bool linear = mode == "linear" || mode == "bilinear";
  const bool cubic = mode == "cubic" || mode == "bicubic";
  if (!linear && !cubic) return std::nullopt;
  if (r >= 31) return kCountMax;  // 4^r would overflow; no real model resamples 31 axes
  return uint64_t{2} << ((cubic ? 2 : 1) * r);
}

// Resize/Upsample: r = number of axes whose extent changes between input and output.
OpWork resize(const CostInput& c) {
  const std::string mode = c.node ? c.node->attr_s("mode", "nearest") : "nearest";
  if (mode == "nearest") return OpWork{};
  if (auto bad = need_in(c, {0})) return *bad;
  if (auto bad = need_out(c, {0})) return *bad;
  if (c.in_rank(0) != c.out[0]->dims.size())
    return unknown("Resize input and output ranks differ");
  size_t r = 0;
  for (size_t d = 0; d < c.in_rank(0); ++d)
    r += c.in_dim(0, static_cast<int>(d)) != c.out_dim(0, static_cast<int>(d)) ? 1 : 0;
  auto per = interp_per_out(mode, r);
  if (!per) return unknown("Resize mode '" + mode + "' not costed");
  OpWork w;
  w.flops = sat_mul(u(c.out_elems(0)), *per);
  return w;
}

// GridSample: every output element interpolates over all spatial axes (rank - 2).
OpWork grid_sample(const CostInput& c) {
  if (auto bad = need_out(c, {0})) return *bad;
  const std::string mode = c.node ? c.node->attr_s("mode", "linear") : "linear";
  const size_t rank = c.out[0]->dims.size();
  auto per = interp_per_out(mode, rank >= 2 ? rank - 2 : 0);
  if (!per) return unknown("GridSample mode '" + mode + "' not costed");
  OpWork w;
  w.flops = sat_mul(u(c.out_elems(0)), *per);
  return w;
}

// RoiAlign: each output bin averages (or maxes) s x s bilinear samples: s^2 x (2 x 4) + 1.
OpWork roi_align(const CostInput& c) {
  if (auto bad = need_out(c, {0})) return *bad;
  int64_t s = c.node ? c.node->attr_i("sampling_ratio", 0) : 0;
  OpWork w;
  if (s <= 0) {
    s = 2;
    w.note = "adaptive sampling_ratio assumed 2";
  }
  w.flops = sat_mul(u(c.out_elems(0)), sat_add(sat_mul(u(s), u(s), 8), 1));
  return w;
}

// Scatter with a reduction (add/mul/max/min) does one op per update element; plain scatter copies.
OpWork scatter(const CostInput& c) {
  const std::string red = c.node ? c.node->attr_s("reduction", "none") : "none";
  if (red == "none") return OpWork{};
  if (auto bad = need_in(c, {2})) return *bad;
  OpWork w;
  w.flops = u(c.in_elems(2));
  return w;
}

// Gather, GatherElements, GatherND and Slice read of their data input only the elements they output: an embedding
// lookup reads the rows of its tokens, not the whole table. Unresolved output: the whole input (an upper bound).
OpWork reads_what_it_outputs(const CostInput& c) {
  OpWork w;
  if (c.out_elems(0) >= 0) w.partial_reads.push_back({0, u(c.out_elems(0))});
  return w;
}

// Shape and Size read a tensor's dims, never its data.
OpWork reads_no_data(const CostInput&) {
  OpWork w;
  w.partial_reads.push_back({0, 0});
  return w;
}

}  // namespace
}  // namespace ops_shape_file

void register_shape_ops(CostRegistry& r) {
  using namespace ops_shape_file;
  for (const char* op : kMovement) r.add(kOnnx, op, zero_cost());
  for (const char* op : {"Trilu", "Unique"}) r.add(kMs, op, zero_cost());
  for (const char* op : {"Gather", "GatherElements", "GatherND", "Slice"}) r.add(kOnnx, op, reads_what_it_outputs);
  r.add(kMs, "GatherND", reads_what_it_outputs);
  for (const char* op : {"Shape", "Size"}) r.add(kOnnx, op, reads_no_data);
  r.add(kNchwc, "ReorderInput", zero_cost("layout change"));
  r.add(kNchwc, "ReorderOutput", zero_cost("layout change"));

  for (const char* op : {"Scatter", "ScatterElements", "ScatterND"}) r.add(kOnnx, op, scatter);

  r.add(kOnnx, "Resize", resize);
  r.add(kOnnx, "Upsample", resize);
  r.add(kNchwc, "Upsample", resize);
  r.add(kOnnx, "GridSample", grid_sample);
  r.add(kOnnx, "RoiAlign", roi_align);
}

}  // namespace rooflens
