// Detecting a decoder's KV-cache I/O (Optimum / onnxruntime-genai layout) from the file alone: the zoo's cached
// models are recognised with their geometry; models that are not such decoders get one line naming what is missing;
// the step shapes and the weight bytes a decode step reads.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "generate/decoder_io.h"
#include "generate/traffic.h"
#include "memory/kv_cache.h"
#include "model/loader.h"
#include "support/onnx_builder.h"
#include "zoo/registry.h"
#include "zoo/save.h"

namespace fs = std::filesystem;
using namespace rooflens;

namespace {

class DecoderIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rooflens-decoder-io-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The zoo's llama with a cache (2 layers, 4 heads sharing 2 kv heads of 32), after `edit`, written to a file.
  std::string llama(const std::function<void(onnx::ModelProto&)>& edit = {}) {
    zoo::ZooOptions o;
    o.weights = false;
    o.kv_cache = true;
    o.decoder = {2, 128, 4, 2, 256, 512};
    zoo::BuiltModel m = zoo::make_model(zoo::find_model("llama"), o);
    if (edit) edit(m.model);
    const std::string path = (dir_ / ("m" + std::to_string(++serial_) + ".onnx")).string();
    std::ofstream(path, std::ios::binary) << m.model.SerializeAsString();
    return path;
  }

  std::string error_of(const std::string& path) {
    try {
      detect_decoder_io(read_declared_io(path), path);
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
  int serial_ = 0;
};

void drop_input(onnx::ModelProto& m, const std::string& name) {
  auto* in = m.mutable_graph()->mutable_input();
  for (int i = 0; i < in->size(); ++i)
    if (in->Get(i).name() == name) {
      in->DeleteSubrange(i, 1);
      return;
    }
}

TEST_F(DecoderIoTest, RecognisesTheZooLayout) {
  const std::string path = llama();
  const DecoderIo io = detect_decoder_io(read_declared_io(path), path);
  EXPECT_EQ(io.layout, "optimum");
  EXPECT_EQ(io.input_ids, "input_ids");
  EXPECT_EQ(io.attention_mask, "attention_mask");
  EXPECT_EQ(io.position_ids, "position_ids");
  EXPECT_EQ(io.logits, "logits");
  ASSERT_EQ(io.cache.size(), 2u);
  EXPECT_EQ(io.cache[1].past_value, "past_key_values.1.value");
  EXPECT_EQ(io.cache[1].present_key, "present.1.key");
  EXPECT_EQ(io.kv_heads, 2);
  EXPECT_EQ(io.head_dim, 32);
  EXPECT_EQ(io.vocab, 512);
  EXPECT_EQ(io.kv_dtype, "float");
  EXPECT_EQ(io.ids_dtype, "int64");
  // 2 layers x (key + value) x 2 kv heads x 32 x 4 bytes
  EXPECT_EQ(kv_bytes_per_token(io), 2u * 2 * 2 * 32 * 4);

  const auto shapes = step_shapes(io, 3, 1, 40);
  EXPECT_EQ(shapes.at("input_ids"), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(shapes.at("attention_mask"), (std::vector<int64_t>{3, 41}));
  EXPECT_EQ(shapes.at("past_key_values.0.key"), (std::vector<int64_t>{3, 2, 40, 32}));
  const auto dims = step_dims(read_declared_io(path), shapes);
  EXPECT_EQ(dims.at("batch_size"), 3);
  EXPECT_EQ(dims.at("sequence_length"), 1);
  EXPECT_EQ(dims.at("past_sequence_length"), 40);
  EXPECT_EQ(dims.at("past_sequence_length + sequence_length"), 41);
}

// attention_mask and position_ids are optional (older GPT-2 exports have no position_ids).
TEST_F(DecoderIoTest, MaskAndPositionsAreOptional) {
  const std::string path = llama([](onnx::ModelProto& m) { drop_input(m, "position_ids"); });
  const DecoderIo io = detect_decoder_io(read_declared_io(path), path);
  EXPECT_EQ(io.position_ids, "");
  EXPECT_EQ(step_shapes(io, 1, 8, 0).count("position_ids"), 0u);
}

TEST_F(DecoderIoTest, SaysWhatIsMissing) {
  // A model without any cache: the plain zoo GPT-2.
  zoo::ZooOptions o;
  o.weights = false;
  o.decoder.layers = 1;
  const std::string plain = (dir_ / "plain.onnx").string();
  std::ofstream(plain, std::ios::binary) << zoo::make_model(zoo::find_model("gpt2"), o).model.SerializeAsString();
  EXPECT_NE(error_of(plain).find("no past_key_values.N.key/.value inputs (inputs: input_ids)"), std::string::npos)
      << error_of(plain);
  EXPECT_NE(error_of(plain).find("--kv-cache"), std::string::npos);

  EXPECT_NE(error_of(llama([](onnx::ModelProto& m) { drop_input(m, "past_key_values.1.value"); }))
                .find("input 'past_key_values.1.value' is missing"),
            std::string::npos);
  EXPECT_NE(error_of(llama([](onnx::ModelProto& m) { drop_input(m, "input_ids"); })).find("no input 'input_ids'"),
            std::string::npos);
  EXPECT_NE(error_of(llama([](onnx::ModelProto& m) { m.mutable_graph()->mutable_output(2)->set_name("present_x"); }))
                .find("output 'present.0.value' is missing"),
            std::string::npos);
  EXPECT_NE(error_of(llama([](onnx::ModelProto& m) {
              rooflens::testing::add_value(m.mutable_graph()->mutable_input(), "use_cache_branch", {1}, {}, onnx::TensorProto::BOOL);
            })).find("merged decoder"),
            std::string::npos);
  EXPECT_NE(error_of(llama([](onnx::ModelProto& m) {
              rooflens::testing::add_value(m.mutable_graph()->mutable_input(), "token_type_ids", {-1, -1}, {"b", "s"},
                                 onnx::TensorProto::INT64);
            })).find("input 'token_type_ids' is not one rooflens generate feeds"),
            std::string::npos);
  EXPECT_NE(error_of(llama([](onnx::ModelProto& m) {
              auto* d = m.mutable_graph()->mutable_input(3)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1);
              d->set_dim_param("num_kv_heads");
            })).find("symbolic kv_heads or head_dim"),
            std::string::npos);
  // Every message is one line naming the file.
  const std::string e = error_of(plain);
  EXPECT_EQ(e.find('\n'), std::string::npos);
  EXPECT_EQ(e.rfind(plain, 0), 0u);
}

// Weights a decode step reads: an embedding table only gathered is read by its rows; a tied one (also the LM head's
// MatMul after a Transpose) in full.
TEST_F(DecoderIoTest, WeightBytesCountGatheredRowsOnly) {
  onnx::ModelProto m = rooflens::testing::empty_model();
  auto* g = m.mutable_graph();
  rooflens::testing::add_value(g->mutable_input(), "ids", {2, 3}, {}, onnx::TensorProto::INT64);
  rooflens::testing::add_value(g->mutable_output(), "y", {2, 3, 4});
  rooflens::testing::add_value(g->mutable_output(), "z", {2, 3, 5});
  auto init = [&](const std::string& name, std::vector<int64_t> dims) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (auto d : dims) t->add_dims(d), n *= d;
    t->set_raw_data(std::string(static_cast<size_t>(n) * 4, '\0'));
  };
  init("table", {100, 4});  // gathered only: 6 ids x 4 floats x 4 bytes = 96 bytes
  init("tied", {5, 4});     // gathered and transposed for a MatMul: all 80 bytes
  init("w", {4, 5});        // MatMul weight: 80 bytes
  rooflens::testing::add_node(g, "Gather", {"table", "ids"}, {"y"});
  rooflens::testing::add_node(g, "Gather", {"tied", "ids"}, {"e"});
  rooflens::testing::add_node(g, "Transpose", {"tied"}, {"tt"});
  rooflens::testing::add_node(g, "MatMul", {"e", "w"}, {"h"});
  rooflens::testing::add_node(g, "Add", {"h", "h"}, {"z"});
  const std::string bytes = m.SerializeAsString();
  const Model model = load_model_from_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "w.onnx", "");
  EXPECT_EQ(weight_bytes_read(model), 96u + 80u + 80u);
}

}  // namespace
