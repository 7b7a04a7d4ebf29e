#include "model/libonnx_preconditions.h"

#include <optional>
#include <stdexcept>

namespace rooflens {
namespace {

// Attributes the spec requires positive: libonnx's conv/pool/space-to-depth functions divide by them.
void positive_attributes(const onnx::NodeProto& n) {
  static constexpr const char* kMustBePositive[] = {"strides", "dilations", "kernel_shape", "blocksize", "group"};
  for (const auto& a : n.attribute())
    for (const char* name : kMustBePositive) {
      if (a.name() != name) continue;
      bool bad = a.type() == onnx::AttributeProto::INT ? a.i() <= 0 : false;
      for (auto v : a.ints()) bad |= v <= 0;
      if (bad) throw std::runtime_error(std::string("attribute '") + name + "' must be positive");
    }
}

// GatherND's batch_dims counts leading dims: libonnx copies dims from index batch_dims on.
void non_negative_batch_dims(const onnx::NodeProto& n) {
  if (n.op_type() != "GatherND") return;
  for (const auto& a : n.attribute())
    if (a.name() == "batch_dims" && a.i() < 0) throw std::runtime_error("attribute 'batch_dims' must be non-negative");
}

std::optional<int> declared_rank_of(const onnx::NodeProto& n, int input,
                           const std::unordered_map<std::string, onnx::TypeProto*>& types) {
  if (input >= n.input_size() || n.input(input).empty()) return std::nullopt;
  auto it = types.find(n.input(input));
  if (it == types.end() || !it->second->has_tensor_type() || !it->second->tensor_type().has_shape())
    return std::nullopt;
  return it->second->tensor_type().shape().dim_size();
}

// Inputs whose rank the spec fixes, which libonnx then indexes without looking.
struct FixedRank {
  const char* op;
  int rank;
  int inputs[3];  // -1: unused
};
constexpr FixedRank kFixedRanks[] = {
    {"Gemm", 2, {0, 1, -1}},  // A (M, K), B (K, N)
    {"RNN", 3, {0, 1, 2}},    // X (seq, batch, input), W and R (directions, gates × hidden, ·)
    {"GRU", 3, {0, 1, 2}},
    {"LSTM", 3, {0, 1, 2}},
    {"STFT", 3, {0, -1, -1}},  // signal (batch, length, 1 or 2)
    {"STFT", 0, {1, 3, -1}},   // frame_step, frame_length: scalars
    {"STFT", 1, {2, -1, -1}},  // window
};

// Input pairs the spec gives the same rank (data and weights: N × C × spatial and M × C/group × kernel).
struct SameRank {
  const char* op;
  int a, b;
};
constexpr SameRank kSameRanks[] = {
    {"Conv", 0, 1}, {"ConvInteger", 0, 1}, {"ConvTranspose", 0, 1}, {"QLinearConv", 0, 3}, {"MaxUnpool", 0, 1},
};

void ranks(const onnx::NodeProto& n, const std::unordered_map<std::string, onnx::TypeProto*>& types) {
  for (const auto& r : kFixedRanks) {
    if (n.op_type() != r.op) continue;
    for (int i : r.inputs) {
      if (i < 0) continue;
      auto rank = declared_rank_of(n, i, types);
      if (rank && *rank != r.rank)
        throw std::runtime_error("input " + std::to_string(i) + " has rank " + std::to_string(*rank) + "; " + r.op +
                                 " requires rank " + std::to_string(r.rank));
    }
  }
  for (const auto& r : kSameRanks) {
    if (n.op_type() != r.op) continue;
    auto a = declared_rank_of(n, r.a, types), b = declared_rank_of(n, r.b, types);
    if (a && b && *a != *b)
      throw std::runtime_error("inputs " + std::to_string(r.a) + " and " + std::to_string(r.b) + " have ranks " +
                               std::to_string(*a) + " and " + std::to_string(*b) + "; " + r.op +
                               " requires the same rank");
  }
}

}  // namespace

void check_libonnx_preconditions(const onnx::NodeProto& n,
                                 const std::unordered_map<std::string, onnx::TypeProto*>& types) {
  positive_attributes(n);  // any domain: a contrib op's schema may reuse libonnx's conv/pool functions
  // The op names below are the default domain's.
  if (!n.domain().empty() && n.domain() != "ai.onnx") return;
  non_negative_batch_dims(n);
  ranks(n, types);
}

}  // namespace rooflens
