// Loader internals: the skeleton keeps metadata and drops big payloads at exactly the right offsets, the
// wire reader refuses malformed bytes, and shape overrides parse as documented.
#include <gtest/gtest.h>

#include <cstring>

#include "core/errors.h"
#include "model/loader.h"
#include "model/skeleton.h"
#include "model/wire.h"
#include "support/onnx_builder.h"

using namespace rooflens;
using namespace rooflens::testing;

namespace {

// y = Reshape(MatMul(x, W), shape) with a 256x256 weight (256 KiB, stripped) and a tiny shape constant (kept).
onnx::ModelProto model_with_big_and_small_tensors() {
  auto m = empty_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {-1, 256}, {"batch"});
  add_value(g->mutable_output(), "y", {-1, 16, 16}, {"batch"});
  add_float_initializer(g, "W", {256, 256}, 0.25f);
  auto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(3);
  for (int64_t v : {0, 16, 16}) shape->add_int64_data(v);
  add_node(g, "MatMul", {"x", "W"}, {"h"}, "mm");
  add_node(g, "Reshape", {"h", "shape"}, {"y"}, "reshape");
  return m;
}

}  // namespace

TEST(Skeleton, StripsLargePayloadsAndRecordsWhereTheyAre) {
  std::string bytes = model_with_big_and_small_tensors().SerializeAsString();
  auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  Skeleton sk = build_skeleton(data, bytes.size());
  EXPECT_LT(sk.bytes.size(), 1024u) << "the 256 KiB weight must not be in the skeleton";
  ASSERT_EQ(sk.payloads.size(), 1u);
  EXPECT_EQ(sk.payloads[0].tensor_name, "W");
  EXPECT_EQ(sk.payloads[0].length, 256u * 256u * 4u);
  // The span points at the float bytes themselves: every value there is 0.25f.
  float first = 0, last = 0;
  std::memcpy(&first, data + sk.payloads[0].offset, 4);
  std::memcpy(&last, data + sk.payloads[0].offset + sk.payloads[0].length - 4, 4);
  EXPECT_EQ(first, 0.25f);
  EXPECT_EQ(last, 0.25f);
  // The skeleton is a valid ModelProto with the small tensor intact.
  onnx::ModelProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(sk.bytes));
  EXPECT_EQ(parsed.graph().initializer(0).dims_size(), 2);
  EXPECT_FALSE(parsed.graph().initializer(0).has_raw_data());
  EXPECT_EQ(parsed.graph().initializer(1).int64_data_size(), 3);
}

TEST(Skeleton, RefusesMalformedBytes) {
  std::string bytes = model_with_big_and_small_tensors().SerializeAsString();
  auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  EXPECT_THROW(build_skeleton(data, bytes.size() - 100), WireError);  // truncated inside the weight
  const uint8_t bad_wire_type[] = {0x0f, 0x01};                     // field 1, wire type 7
  EXPECT_THROW(build_skeleton(bad_wire_type, sizeof bad_wire_type), WireError);
  const uint8_t long_varint[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  EXPECT_THROW(build_skeleton(long_varint, sizeof long_varint), WireError);
}

TEST(Skeleton, DeepNestingIsRefusedNotRecursedForever) {
  // graph { node { attribute { g { node { attribute { g ... } } } } } } built from the inside out.
  std::string graph;
  for (int i = 0; i < 200; ++i) {
    std::string attr, node, g;
    put_len_field(attr, 6, graph);  // AttributeProto.g
    put_len_field(node, 5, attr);   // NodeProto.attribute
    put_len_field(g, 1, node);      // GraphProto.node
    graph = g;
  }
  std::string model;
  put_len_field(model, 7, graph);  // ModelProto.graph
  EXPECT_THROW(build_skeleton(reinterpret_cast<const uint8_t*>(model.data()), model.size()), WireError);
}

TEST(Loader, ResolvesShapesThroughConstantsAndKeepsWeightsLazy) {
  std::string bytes = model_with_big_and_small_tensors().SerializeAsString();
  ShapeOverrides o;
  o.batch = 8;
  Model m = load_model_from_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "t.onnx", "", o);
  ASSERT_EQ(m.graphs.size(), 1u);
  const TensorInfo* y = m.find_tensor(0, "y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->shape_string(), "8x16x16");
  const Initializer* w = m.find_initializer(0, "W");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->elements, 65536);
  EXPECT_EQ(w->length, 262144u);
  EXPECT_GT(w->offset, 0u);
  const Initializer* s = m.find_initializer(0, "shape");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->int_values, (std::vector<int64_t>{0, 16, 16}));
}

TEST(Loader, UnnamedNodesGetStableNames) {
  auto m = empty_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {2, 3});
  add_value(g->mutable_output(), "z", {2, 3});
  add_node(g, "Relu", {"x"}, {"y"});
  add_node(g, "Neg", {"y"}, {"z"});
  std::string bytes = m.SerializeAsString();
  Model model = load_model_from_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "t.onnx", "");
  ASSERT_EQ(model.graphs[0].nodes.size(), 2u);
  EXPECT_EQ(model.graphs[0].nodes[0].name, "Relu_0");
  EXPECT_EQ(model.graphs[0].nodes[1].name, "Neg_1");
}

TEST(Loader, NodesOutOfOrderAreSortedTopologically) {
  auto m = empty_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {2, 3});
  add_value(g->mutable_output(), "z", {2, 3});
  add_node(g, "Neg", {"y"}, {"z"}, "second");
  add_node(g, "Relu", {"x"}, {"y"}, "first");
  std::string bytes = m.SerializeAsString();
  Model model = load_model_from_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "t.onnx", "");
  EXPECT_EQ(model.graphs[0].nodes[0].name, "first");
  EXPECT_EQ(model.find_tensor(0, "z")->shape_string(), "2x3");
}

TEST(ShapeOverrides, ParseAsDocumented) {
  auto [name, dims] = parse_shape_override("input:1x3x224x224");
  EXPECT_EQ(name, "input");
  EXPECT_EQ(dims, (std::vector<int64_t>{1, 3, 224, 224}));
  auto [n2, d2] = parse_shape_override("scope:tensor:0:2x5");  // names may contain ':'
  EXPECT_EQ(n2, "scope:tensor:0");
  EXPECT_EQ(d2, (std::vector<int64_t>{2, 5}));
  auto [dn, dv] = parse_dim_override("seq=128");
  EXPECT_EQ(dn, "seq");
  EXPECT_EQ(dv, 128);
  EXPECT_THROW(parse_shape_override("input"), UsageError);
  EXPECT_THROW(parse_shape_override("input:1xx3"), UsageError);
  EXPECT_THROW(parse_shape_override("input:-1x3"), UsageError);
  EXPECT_THROW(parse_dim_override("seq"), UsageError);
  EXPECT_THROW(parse_dim_override("seq=abc"), UsageError);
}

TEST(Loader, InlineDataThatDisagreesWithDimsIsRefused) {
  // Regression for a fuzzer finding: libonnx 1.12 overflowed a heap buffer copying such raw_data.
  auto m = model_with_big_and_small_tensors();
  auto* shape = m.mutable_graph()->mutable_initializer(1);
  shape->clear_int64_data();
  shape->set_raw_data(std::string(17, '\1'));  // dims [3] int64 need 24 bytes
  std::string bytes = m.SerializeAsString();
  try {
    load_model_from_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "t.onnx", "");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("initializer 'shape' holds 17 bytes"), std::string::npos) << e.what();
  }
}

TEST(ShapeOverrides, AnUnresolvedDimSharedByManyInputsNamesTwoAndCountsTheRest) {
  // A decoder's past_key_values.N inputs share one symbol: the message stays one readable line.
  auto m = empty_model();
  auto* g = m.mutable_graph();
  for (int i = 0; i < 5; ++i) {
    const std::string in = "past." + std::to_string(i);
    add_value(g->mutable_input(), in, {-1, -1}, {"batch", "past"});
    add_value(g->mutable_output(), "y." + std::to_string(i), {-1, -1}, {"batch", "past"});
    add_node(g, "Relu", {in}, {"y." + std::to_string(i)}, "relu" + std::to_string(i));
  }
  const std::string bytes = m.SerializeAsString();
  try {
    load_model_from_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "t.onnx", "", ShapeOverrides{});
    FAIL() << "an unresolved dim was accepted";
  } catch (const UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'past' ('past.0' dim 1, 'past.1' dim 1 and 3 more): --dim past=N"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}
