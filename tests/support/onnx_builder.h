#pragma once
// Tiny helpers for tests that need hand-made ONNX files (bad inputs, edge cases).
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/loader.h"

namespace rooflens::testing {

// `m` loaded as rooflens loads a file (from the bytes it would read), at `overrides`.
inline Model load_built(const onnx::ModelProto& m, const ShapeOverrides& overrides = {}) {
  const std::string bytes = m.SerializeAsString();
  return load_model_from_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "t.onnx", "", overrides);
}

inline onnx::ModelProto empty_model(int64_t opset = 17) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("rooflens-tests");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

// dims: >= 0 fixed, -1 unknown; names non-empty make the dim symbolic.
inline void add_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name,
                      std::vector<int64_t> dims, std::vector<std::string> names = {},
                      int elem = onnx::TensorProto::FLOAT) {
  auto* vi = list->Add();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* shape = tt->mutable_shape();
  for (size_t i = 0; i < dims.size(); ++i) {
    auto* d = shape->add_dim();
    if (i < names.size() && !names[i].empty()) d->set_dim_param(names[i]);
    else if (dims[i] >= 0) d->set_dim_value(dims[i]);
  }
}

inline onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in,
                                 std::vector<std::string> out, const std::string& name = "",
                                 const std::string& domain = "") {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  n->set_domain(domain);
  for (auto& s : in) n->add_input(s);
  for (auto& s : out) n->add_output(s);
  return n;
}

inline onnx::TensorProto* add_float_initializer(onnx::GraphProto* g, const std::string& name,
                                                std::vector<int64_t> dims, float value = 0.5f) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (auto d : dims) { t->add_dims(d); n *= d; }
  std::string raw(static_cast<size_t>(n) * 4, '\0');
  for (int64_t i = 0; i < n; ++i) std::memcpy(raw.data() + i * 4, &value, 4);
  t->set_raw_data(raw);
  return t;
}

inline void save(const onnx::ModelProto& m, const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  m.SerializeToOstream(&f);
}

// y = x · W repeated `layers` times, x 64x256, W 256x256: about 4M multiply-adds per layer, so the work (and the
// time) grows with `layers` while everything else stays the same.
inline void matmul_chain_model(const std::string& path, int layers) {
  onnx::ModelProto m = empty_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {64, 256});
  add_value(g->mutable_output(), "y" + std::to_string(layers), {64, 256});
  add_float_initializer(g, "w", {256, 256}, 0.01f);
  for (int i = 1; i <= layers; ++i)
    add_node(g, "MatMul", {i == 1 ? "x" : "y" + std::to_string(i - 1), "w"}, {"y" + std::to_string(i)},
             "mm" + std::to_string(i));
  save(m, path);
}

// matmul_chain_model's chain, then y = chain · v with v 256x1: the same work, and an output of 64 floats (256 bytes)
// instead of 64 KiB. ONNX Runtime's Node binding copies each output into an ArrayBuffer it allocates anew every run,
// and whether that memory's pages are still mapped depends on the state of the runner's allocators: for a 64 KiB output
// its page faults swung a run between 0.06 and 0.25 ms, per process and for stretches of many runs.
inline void matmul_chain_small_output_model(const std::string& path, int layers) {
  onnx::ModelProto m = empty_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {64, 256});
  add_value(g->mutable_output(), "y", {64, 1});
  add_float_initializer(g, "w", {256, 256}, 0.01f);
  add_float_initializer(g, "v", {256, 1}, 0.01f);
  for (int i = 1; i <= layers; ++i)
    add_node(g, "MatMul", {i == 1 ? "x" : "y" + std::to_string(i - 1), "w"}, {"y" + std::to_string(i)},
             "mm" + std::to_string(i));
  add_node(g, "MatMul", {"y" + std::to_string(layers), "v"}, {"y"}, "out");
  save(m, path);
}

// y = x + w, w a float vector of `elements` stored in the side file "w.bin" next to `path`, made sparse (a model of
// several GiB that costs no disk, for checks that read the lengths only).
inline void sparse_external_weight_model(const std::string& path, int64_t elements) {
  const std::string dir = path.substr(0, path.find_last_of('/') + 1);
  { std::ofstream(dir + "w.bin", std::ios::binary).close(); }
  if (truncate((dir + "w.bin").c_str(), static_cast<off_t>(elements) * 4) != 0) throw std::runtime_error("truncate");
  onnx::ModelProto m = empty_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1});
  add_value(g->mutable_output(), "y", {elements});
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(elements);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value("w.bin");
  add_node(g, "Add", {"x", "w"}, {"y"}, "add");
  save(m, path);
}

// y = relu(relu(... x)) on one float, `kernels` times: kernels that do next to nothing, so a profiled run of it is
// what a runtime (and its profiler) spends around each kernel.
inline void tiny_kernel_chain_model(const std::string& path, int kernels) {
  onnx::ModelProto m = empty_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "r0", {1});
  add_value(g->mutable_output(), "r" + std::to_string(kernels), {1});
  for (int i = 1; i <= kernels; ++i)
    add_node(g, "Relu", {"r" + std::to_string(i - 1)}, {"r" + std::to_string(i)}, "relu" + std::to_string(i));
  save(m, path);
}

// A scalar initializer of any element type from its raw bytes.
inline void add_scalar_initializer(onnx::GraphProto* g, const std::string& name, int elem, const std::string& raw) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(elem);
  t->set_raw_data(raw);
}

// x float[1,4] -> QuantizeLinear -> DequantizeLinear -> MatMul with W = DequantizeLinear(int8 `weights`, 4x2) ->
// QuantizeLinear -> DequantizeLinear -> y float[1,2]: the QDQ form a runtime fuses into one u8s8 matmul. Activations
// are uint8 with scale `activation_scale` (the output's quantization step), weights int8 with scale 0.01.
inline void qdq_matmul_model(const std::string& path, const std::vector<int8_t>& weights, float activation_scale = 0.05f) {
  onnx::ModelProto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 4});
  add_value(g->mutable_output(), "y", {1, 2});
  auto f32 = [](float v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  add_scalar_initializer(g, "act_scale", onnx::TensorProto::FLOAT, f32(activation_scale));
  add_scalar_initializer(g, "act_zp", onnx::TensorProto::UINT8, std::string(1, '\0'));
  add_scalar_initializer(g, "w_scale", onnx::TensorProto::FLOAT, f32(0.01f));
  add_scalar_initializer(g, "w_zp", onnx::TensorProto::INT8, std::string(1, '\0'));
  auto* w = g->add_initializer();
  w->set_name("w_q");
  w->set_data_type(onnx::TensorProto::INT8);
  w->add_dims(4);
  w->add_dims(2);
  w->set_raw_data(std::string(reinterpret_cast<const char*>(weights.data()), weights.size()));
  add_node(g, "QuantizeLinear", {"x", "act_scale", "act_zp"}, {"x_q"}, "q_x");
  add_node(g, "DequantizeLinear", {"x_q", "act_scale", "act_zp"}, {"x_dq"}, "dq_x");
  add_node(g, "DequantizeLinear", {"w_q", "w_scale", "w_zp"}, {"w_dq"}, "dq_w");
  add_node(g, "MatMul", {"x_dq", "w_dq"}, {"mm"}, "matmul");
  add_node(g, "QuantizeLinear", {"mm", "act_scale", "act_zp"}, {"y_q"}, "q_y");
  add_node(g, "DequantizeLinear", {"y_q", "act_scale", "act_zp"}, {"y"}, "dq_y");
  save(m, path);
}

}  // namespace rooflens::testing
