#include "zoo/builder.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <utility>

#include <onnx/defs/attr_proto_util.h>

#include "core/errors.h"
#include "zoo/rng.h"

#ifndef ROOFLENS_VERSION
#define ROOFLENS_VERSION "dev"
#endif

namespace rooflens::zoo {

// raw_data is little-endian by the ONNX spec; we memcpy host floats into it.
static_assert(std::endian::native == std::endian::little, "zoo weight generation assumes a little-endian host");

namespace {

// IR version that first shipped with each opset (onnx/docs/Versioning.md), so older runtimes accept
// the files we write for older opsets.
struct OpsetIr {
  int opset;
  std::int64_t ir;
};
constexpr std::array kOpsetIr{OpsetIr{13, 7}, OpsetIr{14, 7}, OpsetIr{15, 8}, OpsetIr{16, 8}, OpsetIr{17, 8}};

std::int64_t ir_for_opset(int opset) {
  for (const auto& e : kOpsetIr)
    if (e.opset == opset) return e.ir;
  throw UserError("--opset " + std::to_string(opset) + " is not supported: the zoo writes opsets " +
                  std::to_string(kOpsetIr.front().opset) + "-" + std::to_string(kOpsetIr.back().opset));
}

void set_type(onnx::ValueInfoProto& vi, onnx::TensorProto_DataType type, const std::vector<Dim>& dims) {
  auto* tensor = vi.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(type);
  auto* shape = tensor->mutable_shape();
  for (const auto& d : dims) {
    auto* dim = shape->add_dim();
    if (const auto* v = std::get_if<std::int64_t>(&d))
      dim->set_dim_value(*v);
    else
      dim->set_dim_param(std::get<std::string>(d));
  }
}

}  // namespace

Init Init::he(std::int64_t fan_in) { return uniform(std::sqrt(6.0f / static_cast<float>(fan_in))); }
Init Init::xavier(std::int64_t fan_in, std::int64_t fan_out) {
  return uniform(std::sqrt(6.0f / static_cast<float>(fan_in + fan_out)));
}
// U(-a, a) has standard deviation a / sqrt(3).
Init Init::normal_std(float std) { return uniform(std * std::sqrt(3.0f)); }

Builder::Builder(std::string_view model_name, const ZooOptions& options) : options_(options) {
  model_.set_ir_version(ir_for_opset(options.opset));
  model_.set_producer_name("rooflens");
  model_.set_producer_version(ROOFLENS_VERSION);
  auto* opset = model_.add_opset_import();
  opset->set_domain("");
  opset->set_version(options.opset);
  model_.mutable_graph()->set_name(std::string(model_name));
}

Dim Builder::batch_dim() const {
  if (options_.batch) return *options_.batch;
  return std::string("batch");
}

Dim Builder::seq_dim() const {
  if (options_.seq) return *options_.seq;
  return std::string("seq");
}

void Builder::input(const std::string& name, onnx::TensorProto_DataType type, const std::vector<Dim>& dims) {
  set_type(*model_.mutable_graph()->add_input(), type, dims);
  model_.mutable_graph()->mutable_input()->rbegin()->set_name(name);
  used_names_[name] = 1;
}

void Builder::output(const std::string& tensor, const std::string& name, onnx::TensorProto_DataType type,
                     const std::vector<Dim>& dims) {
  // Outputs are produced late, so search from the back; consumers of `tensor` are renamed too.
  auto* nodes = model_.mutable_graph()->mutable_node();
  for (auto it = nodes->rbegin(); it != nodes->rend(); ++it) {
    for (auto& out : *it->mutable_output())
      if (out == tensor) out = name;
    for (auto& in : *it->mutable_input())
      if (in == tensor) in = name;
  }
  used_names_[name] = 1;
  auto* vi = model_.mutable_graph()->add_output();
  vi->set_name(name);
  set_type(*vi, type, dims);
}

std::string Builder::param(const std::string& name, const Dims& dims, Init init) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  params_ += static_cast<std::uint64_t>(n);
  return initializer(name, dims, init);
}

std::string Builder::buffer(const std::string& name, const Dims& dims, Init init) {
  return initializer(name, dims, init);
}

std::string Builder::initializer(const std::string& name, const Dims& dims, Init init) {
  auto* t = model_.mutable_graph()->add_initializer();
  t->set_name(unique(name));
  t->set_data_type(onnx::TensorProto_DataType_FLOAT);
  std::size_t n = 1;
  for (auto d : dims) {
    t->add_dims(d);
    n *= static_cast<std::size_t>(d);
  }
  if (options_.weights) {
    // Generate straight into the proto's raw_data buffer: no intermediate vector, no second copy.
    std::string* raw = t->mutable_raw_data();
    raw->resize(n * sizeof(float));
    fill_uniform(reinterpret_cast<float*>(raw->data()), n, options_.seed ^ fnv1a(t->name()), init.lo, init.hi);
  }
  return t->name();
}

std::string Builder::unique(std::string name) {
  int& count = used_names_[name];
  if (count++ == 0) return name;
  std::string candidate;
  do candidate = name + "_" + std::to_string(count++);
  while (used_names_.count(candidate));
  used_names_[candidate] = 1;
  return candidate;
}

std::string Builder::constant(const std::string& key, onnx::TensorProto value) {
  if (auto it = constants_.find(key); it != constants_.end()) return it->second;
  std::string name = op("Constant", "const_" + key, {}, {onnx::MakeAttribute("value", value)});
  constants_.emplace(key, name);
  return name;
}

std::string Builder::scalar_f32(float value) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto_DataType_FLOAT);
  t.add_float_data(value);
  char key[48];
  std::snprintf(key, sizeof key, "f%.9g", static_cast<double>(value));
  return constant(key, std::move(t));
}

std::string Builder::scalar_i64(std::int64_t value) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto_DataType_INT64);
  t.add_int64_data(value);
  std::string key = "i";  // appended, not "i" + ...: GCC 12 warns falsely (-Wrestrict) on that form
  key += std::to_string(value);
  return constant(key, std::move(t));
}

std::string Builder::ints(const std::vector<std::int64_t>& values) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto_DataType_INT64);
  t.add_dims(static_cast<std::int64_t>(values.size()));
  std::string key = "ints";
  for (auto v : values) {
    t.add_int64_data(v);
    key += '_';
    key += std::to_string(v);
  }
  return constant(key, std::move(t));
}

std::string Builder::floats(const std::string& key, const std::vector<float>& values) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto_DataType_FLOAT);
  t.add_dims(static_cast<std::int64_t>(values.size()));
  for (float v : values) t.add_float_data(v);
  return constant("floats_" + key, std::move(t));
}

std::vector<std::string> Builder::node(std::string_view op_type, std::string_view scope,
                                       std::vector<std::string> inputs, Attrs attrs, int outputs) {
  auto* n = model_.mutable_graph()->add_node();
  n->set_op_type(std::string(op_type));
  n->set_name(unique(std::string(scope) + "/" + std::string(op_type)));
  for (auto& in : inputs) n->add_input(std::move(in));
  for (auto& a : attrs) *n->add_attribute() = std::move(a);
  std::vector<std::string> outs;
  for (int i = 0; i < outputs; ++i) {
    // Single-output nodes name their tensor after the node, which keeps profiles easy to map back.
    outs.push_back(outputs == 1 ? n->name() : unique(n->name() + "_output_" + std::to_string(i)));
    n->add_output(outs.back());
  }
  return outs;
}

BuiltModel Builder::finish(std::string_view doc) {
  model_.set_doc_string(std::string(doc));
  auto* seed = model_.add_metadata_props();
  seed->set_key("rooflens.zoo.seed");
  seed->set_value(std::to_string(options_.seed));
  return {std::move(model_), params_};
}

onnx::AttributeProto attr(const std::string& name, std::int64_t value) { return onnx::MakeAttribute(name, value); }
onnx::AttributeProto attr(const std::string& name, float value) { return onnx::MakeAttribute(name, value); }
onnx::AttributeProto attr(const std::string& name, const std::vector<std::int64_t>& values) {
  return onnx::MakeAttribute(name, values);
}

}  // namespace rooflens::zoo
