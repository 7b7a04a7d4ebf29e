#include "zoo/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/errors.h"

namespace rooflens::zoo {
namespace {

bool quantizable(const std::string& op) { return op == "Conv" || op == "MatMul" || op == "Gemm"; }

std::vector<float> floats_of(const onnx::TensorProto& t) {
  std::vector<float> v;
  if (t.has_raw_data()) {
    v.resize(t.raw_data().size() / sizeof(float));
    std::memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(float));
  } else {
    v.assign(t.float_data().begin(), t.float_data().end());
  }
  return v;
}

class Rewriter {
 public:
  Rewriter(onnx::ModelProto& m, const QdqOptions& o)
      : g_(*m.mutable_graph()), weight_range_(o.reduce_range ? kReducedWeightRange : kWeightRange) {
    for (auto& t : *g_.mutable_initializer()) init_[t.name()] = &t;
    for (const auto& n : g_.node())
      for (const auto& in : n.input()) ++uses_[in];
  }

  QdqStats run() {
    std::vector<onnx::NodeProto> old(g_.node().begin(), g_.node().end());
    g_.clear_node();
    for (auto& n : old) {
      if (!quantizable(n.op_type())) {
        *g_.add_node() = n;
        continue;
      }
      ++stats_.quantized_nodes;
      // Gemm(A, B, C) and Conv(X, W, B): inputs 0 and 1 are matrices (weights when initializers), 2 the bias.
      std::vector<float> scales;
      for (int i = 0; i < std::min(n.input_size(), 2); ++i) {
        float scale = kActivationScale;
        n.set_input(i, is_float_weight(n.input(i)) ? weight(n.input(i), scale) : activation(n.input(i)));
        scales.push_back(scale);
      }
      if (n.input_size() > 2 && is_float_weight(n.input(2)))
        n.set_input(2, bias(n.input(2), scales[0] * scales[1]));
      // Output: node -> Q -> DQ -> the original tensor name, so consumers see what they saw before.
      std::string out = n.output(0);
      n.set_output(0, out + "_prequant");
      *g_.add_node() = n;
      std::string q = qdq("QuantizeLinear", n.output(0), act_scale(), act_zero_point(), out + "_quantized");
      qdq("DequantizeLinear", q, act_scale(), act_zero_point(), out);
      dequantized_[out] = out;  // already a dequantized tensor: the next consumer needs no new pair
    }
    drop_unused_float_weights();
    return stats_;
  }

 private:
  bool is_float_weight(const std::string& name) const {
    auto it = init_.find(name);
    return it != init_.end() && it->second->data_type() == onnx::TensorProto::FLOAT;
  }

  std::string qdq(const char* op, const std::string& in, const std::string& scale, const std::string& zp,
                  const std::string& out) {
    onnx::NodeProto* n = g_.add_node();
    n->set_op_type(op);
    n->set_name(out + (op[0] == 'Q' ? "/QuantizeLinear" : "/DequantizeLinear"));
    n->add_input(in);
    n->add_input(scale);
    n->add_input(zp);
    n->add_output(out);
    ++(op[0] == 'Q' ? stats_.quantize_nodes : stats_.dequantize_nodes);
    return out;
  }

  onnx::TensorProto* add_init(const std::string& name, int type) {
    onnx::TensorProto* t = g_.add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    return t;
  }

  std::string scalar_f32(const std::string& name, float v) {
    add_init(name, onnx::TensorProto::FLOAT)->add_float_data(v);
    return name;
  }

  std::string act_scale() {
    if (act_scale_.empty()) act_scale_ = scalar_f32("qdq/activation_scale", kActivationScale);
    return act_scale_;
  }
  std::string act_zero_point() {
    if (act_zp_.empty()) {
      act_zp_ = "qdq/activation_zero_point";
      add_init(act_zp_, onnx::TensorProto::UINT8)->add_int32_data(kActivationZeroPoint);
    }
    return act_zp_;
  }

  // An activation: one Q -> DQ pair per tensor, shared by all its quantized consumers.
  std::string activation(const std::string& name) {
    auto it = dequantized_.find(name);
    if (it != dequantized_.end()) return it->second;
    std::string q = qdq("QuantizeLinear", name, act_scale(), act_zero_point(), name + "_quantized");
    std::string dq = qdq("DequantizeLinear", q, act_scale(), act_zero_point(), name + "_dequantized");
    dequantized_[name] = dq;
    return dq;
  }

  // A float weight: int8, symmetric, per tensor (in [-weight_range_, weight_range_]), behind a DequantizeLinear.
  std::string weight(const std::string& name, float& scale) {
    --uses_[name];
    auto done = weights_.find(name);  // a weight shared by several nodes is quantized once
    if (done != weights_.end()) {
      scale = done->second.second;
      return done->second.first;
    }
    std::vector<float> w = floats_of(*init_.at(name));
    float max = 0;
    for (float x : w) max = std::max(max, std::fabs(x));
    const auto range = static_cast<float>(weight_range_);
    scale = max > 0 ? max / range : 1.0f;
    onnx::TensorProto* q = add_init(name + "_quantized", onnx::TensorProto::INT8);
    q->mutable_dims()->CopyFrom(init_.at(name)->dims());
    std::string raw(w.size(), '\0');
    for (size_t i = 0; i < w.size(); ++i)
      raw[i] = static_cast<char>(static_cast<int8_t>(std::lround(std::clamp(w[i] / scale, -range, range))));
    q->set_raw_data(raw);
    std::string s = scalar_f32(name + "_scale", scale);
    std::string zp = name + "_zero_point";
    add_init(zp, onnx::TensorProto::INT8)->add_int32_data(0);
    std::string dq = qdq("DequantizeLinear", name + "_quantized", s, zp, name + "_dequantized");
    weights_[name] = {dq, scale};
    return dq;
  }

  // A float bias: int32 at the product of the input and weight scales (what integer kernels accumulate in).
  std::string bias(const std::string& name, float scale) {
    std::vector<float> b = floats_of(*init_.at(name));
    onnx::TensorProto* q = add_init(name + "_quantized", onnx::TensorProto::INT32);
    q->mutable_dims()->CopyFrom(init_.at(name)->dims());
    std::string raw(b.size() * sizeof(int32_t), '\0');
    for (size_t i = 0; i < b.size(); ++i) {
      double v = std::clamp(std::round(static_cast<double>(b[i]) / scale), -2147483647.0, 2147483647.0);
      int32_t x = static_cast<int32_t>(v);
      std::memcpy(raw.data() + i * sizeof x, &x, sizeof x);
    }
    q->set_raw_data(raw);
    std::string s = scalar_f32(name + "_scale", scale);
    std::string zp = name + "_zero_point";
    add_init(zp, onnx::TensorProto::INT32)->add_int32_data(0);
    --uses_[name];
    return qdq("DequantizeLinear", name + "_quantized", s, zp, name + "_dequantized");
  }

  void drop_unused_float_weights() {
    auto* inits = g_.mutable_initializer();
    for (int i = inits->size() - 1; i >= 0; --i) {
      auto it = uses_.find(inits->Get(i).name());
      if (it != uses_.end() && it->second <= 0) inits->DeleteSubrange(i, 1);
    }
  }

  onnx::GraphProto& g_;
  std::unordered_map<std::string, onnx::TensorProto*> init_;
  std::unordered_map<std::string, int> uses_;
  std::map<std::string, std::string> dequantized_;  // float tensor -> its dequantized copy
  std::map<std::string, std::pair<std::string, float>> weights_;  // float weight -> (dequantized, scale)
  std::string act_scale_, act_zp_;
  int32_t weight_range_;
  QdqStats stats_;
};

}  // namespace

QdqStats quantize_qdq(onnx::ModelProto& model, const QdqOptions& options) {
  for (const auto& op : model.opset_import())
    if ((op.domain().empty() || op.domain() == "ai.onnx") && op.version() < 13)
      throw UserError("--quantize qdq needs opset 13 or later (the model has " + std::to_string(op.version()) + ")");
  return Rewriter(model, options).run();
}

}  // namespace rooflens::zoo
