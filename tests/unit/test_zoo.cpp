// Tests for the model zoo: published parameter counts, ONNX checker, full static shape inference, and an
// independent matmul-class MAC count (computed here from the inferred shapes, not by rooflens' analyzer).
// Each model is built once per test run (see `evaluated`), because the big ones carry ~0.5 GB of weights.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include "analysis/cost.h"
#include "analysis/model_summary.h"
#include "core/errors.h"
#include "model/loader.h"
#include "zoo/registry.h"
#include "zoo/save.h"

namespace rooflens::zoo {
namespace {

using Shape = std::vector<std::int64_t>;

// Published references: trainable parameters (torchvision / Hugging Face) and matmul-class MACs at
// 1x3x224x224 (torchvision's documented GFLOPS, which count multiply-adds, i.e. MACs). The exact MAC
// integers are what this file's independent count gives; the lead wires the same ones to `rooflens analyze`.
struct Expected {
  const char* name;
  std::uint64_t params;
  double published_gmacs;  // 0: derived from dimensions below instead
  std::uint64_t macs;
  // Stored tensors that are not trainable parameters (a framework's buffers) but that `rooflens analyze` counts
  // like any stored tensor: llama's rotary inv_freq table (head_dim / 2 = 32 floats, a Constant node; Hugging Face
  // registers it as a buffer, so the published count leaves it out).
  std::uint64_t stored_buffers = 0;
};

// bert_base at batch 1, seq S=128, hidden D=768, heads H=12 (head dim 64), FFN F=3072, L=12 layers:
//   per layer: Q, K, V, attention-output projections 4*S*D*D = 301,989,888
//              attention QK^T and AV (included)  2*H*S*S*64  =  25,165,824
//              FFN up + down                     2*S*D*F     = 603,979,776   -> 931,135,488 per layer
//   12 layers = 11,173,625,856; pooler dense on the [CLS] token only: D*D = 589,824
//   total 11,174,215,680 (no MLM head: BertModel). Embedding Gathers are not MACs.
// gpt2 at batch 1, seq 128: per layer c_attn S*D*3D = 226,492,416 + QK^T/AV 25,165,824 + c_proj S*D*D
//   = 75,497,472 + MLP 2*S*D*4D = 603,979,776 -> 931,135,488; 12 layers = 11,173,625,856;
//   tied LM head (included) S*D*V = 128*768*50257 = 4,940,464,128; total 16,114,089,984.
// llama (SmolLM2-135M) at batch 1, seq 128, D=576, 9 heads sharing 3 kv heads (d 64), MLP F=1536, 30 layers: per
//   layer q + o 2*S*D*D = 84,934,656, k + v 2*S*D*192 = 28,311,552, QK^T/AV 2*9*S*S*64 = 18,874,368, SwiGLU 3*S*D*F
//   = 339,738,624 -> 471,859,200; 30 layers = 14,155,776,000; tied LM head S*D*V = 3,623,878,656.
const Expected kExpected[] = {
    {"resnet18", 11'689'512, 1.81, 1'814'073'344},
    {"resnet50", 25'557'032, 4.09, 4'089'184'256},
    {"mobilenet_v2", 3'504'872, 0.30, 300'774'272},
    {"vgg16", 138'357'544, 15.47, 15'470'264'320},
    {"squeezenet1_0", 1'248'424, 0.82, 818'924'576},
    {"vit_b_16", 86'567'656, 17.56, 17'563'828'224},
    {"bert_base", 109'482'240, 0, 12ULL * (4 * 128 * 768 * 768 + 2 * 12 * 128 * 128 * 64 + 2 * 128 * 768 * 3072) +
                                      768 * 768},
    {"gpt2", 124'439'808, 0, 12ULL * (128 * 768 * 2304 + 2 * 12 * 128 * 128 * 64 + 128 * 768 * 768 +
                                      2 * 128 * 768 * 3072) + 128ULL * 768 * 50257},
    {"llama", 134'515'008, 0, 30ULL * (2 * 128 * 576 * 576 + 2 * 128 * 576 * 192 + 2 * 9 * 128 * 128 * 64 +
                                       3 * 128 * 576 * 1536) + 128ULL * 576 * 49152, 32},
};

const Expected& expected(const std::string& name) {
  for (const auto& e : kExpected)
    if (name == e.name) return e;
  throw std::logic_error("no expectation for " + name);
}

std::uint64_t elements(const Shape& s) {
  std::uint64_t n = 1;
  for (auto d : s) n *= static_cast<std::uint64_t>(d);
  return n;
}

// Trainable params from the proto alone: every initializer element except BatchNormalization's running
// mean/var (inputs 3 and 4), which are buffers. Constants are Constant nodes, so they never count.
std::uint64_t count_params(const onnx::ModelProto& m) {
  std::set<std::string> buffers;
  for (const auto& n : m.graph().node())
    if (n.op_type() == "BatchNormalization") buffers.insert({n.input(3), n.input(4)});
  std::uint64_t total = 0;
  for (const auto& t : m.graph().initializer())
    if (!buffers.count(t.name())) total += elements(Shape(t.dims().begin(), t.dims().end()));
  return total;
}

struct Summary {
  std::uint64_t builder_params = 0;
  std::uint64_t proto_params = 0;
  std::uint64_t macs = 0;
  std::string checker_error;
  std::vector<std::string> unresolved;  // node outputs without a fully static inferred shape
  bool weights_finite = true;
  bool bn_var_positive = true;
  // What `rooflens analyze` itself says about the file the user would get.
  std::uint64_t analyze_macs = 0, analyze_params = 0;
  std::int64_t analyze_unresolved = -1, analyze_unknown = -1;
};

bool all_finite_and(const onnx::TensorProto& t, bool (*pred)(float)) {
  const auto* f = reinterpret_cast<const float*>(t.raw_data().data());
  for (std::size_t i = 0; i < t.raw_data().size() / sizeof(float); ++i)
    if (!std::isfinite(f[i]) || !pred(f[i])) return false;
  return true;
}

std::uint64_t count_macs(const onnx::ModelProto& m, const std::unordered_map<std::string, Shape>& shapes) {
  std::uint64_t macs = 0;
  for (const auto& n : m.graph().node()) {
    const Shape& out = shapes.at(n.output(0));
    if (n.op_type() == "Conv") {
      const Shape& w = shapes.at(n.input(1));  // [Cout, Cin/group, kh, kw]
      macs += elements(out) * static_cast<std::uint64_t>(w[1] * w[2] * w[3]);
    } else if (n.op_type() == "MatMul") {
      macs += elements(out) * static_cast<std::uint64_t>(shapes.at(n.input(0)).back());
    } else if (n.op_type() == "Gemm") {
      const Shape& a = shapes.at(n.input(0));  // transA is never set by the zoo
      macs += elements(out) * static_cast<std::uint64_t>(a[1]);
    }
  }
  return macs;
}

Summary evaluate(const std::string& name) {
  Summary s;
  ZooOptions o;
  o.batch = 1;
  const ModelSpec& spec = find_model(name);
  if (spec.modality == Modality::Text) o.seq = 128;
  BuiltModel built = make_model(spec, o);
  s.builder_params = built.params;
  s.proto_params = count_params(built.model);
  {
    const std::string bytes = built.model.SerializeAsString();
    rooflens::Model m = rooflens::load_model_from_bytes(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                        bytes.size(), name + ".onnx", "");
    rooflens::Analysis a = rooflens::analyze_model(m, rooflens::CostRegistry::builtin());
    s.analyze_macs = a.totals.macs;
    s.analyze_params = a.totals.params;
    s.analyze_unresolved = a.totals.unresolved_nodes;
    s.analyze_unknown = a.totals.unknown_cost_nodes;
  }
  try {
    onnx::checker::check_model(built.model);
  } catch (const std::exception& e) {
    s.checker_error = e.what();
  }
  std::set<std::string> bn_vars;
  for (const auto& n : built.model.graph().node())
    if (n.op_type() == "BatchNormalization") bn_vars.insert(n.input(4));
  for (const auto& t : built.model.graph().initializer()) {
    s.weights_finite &= all_finite_and(t, [](float) { return true; });
    if (bn_vars.count(t.name())) s.bn_var_positive &= all_finite_and(t, [](float v) { return v > 0; });
  }
  onnx::shape_inference::InferShapes(built.model, onnx::OpSchemaRegistry::Instance(),
                                     onnx::ShapeInferenceOptions(true, 1, false));
  std::unordered_map<std::string, Shape> shapes;
  auto record = [&](const onnx::ValueInfoProto& vi) {
    Shape dims;
    for (const auto& d : vi.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value()) return;
      dims.push_back(d.dim_value());
    }
    if (vi.type().tensor_type().has_shape()) shapes[vi.name()] = dims;
  };
  for (const auto& vi : built.model.graph().input()) record(vi);
  for (const auto& vi : built.model.graph().value_info()) record(vi);
  for (const auto& vi : built.model.graph().output()) record(vi);
  for (const auto& t : built.model.graph().initializer()) shapes[t.name()] = Shape(t.dims().begin(), t.dims().end());
  for (const auto& n : built.model.graph().node())
    for (const auto& out : n.output())
      if (!shapes.count(out)) s.unresolved.push_back(out);
  if (s.unresolved.empty()) s.macs = count_macs(built.model, shapes);
  return s;
}

// Built once per run and reused by every test about that model.
const Summary& evaluated(const std::string& name) {
  static std::map<std::string, Summary> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, evaluate(name)).first;
  return it->second;
}

class ZooModel : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooModel, ParamsEqualPublishedCount) {
  const Summary& s = evaluated(GetParam());
  EXPECT_EQ(s.proto_params, expected(GetParam()).params);
  EXPECT_EQ(s.builder_params, s.proto_params) << "builder tally and proto count disagree";
}

TEST_P(ZooModel, PassesOnnxChecker) { EXPECT_EQ(evaluated(GetParam()).checker_error, ""); }

TEST_P(ZooModel, ShapeInferenceResolvesEveryNodeOutput) {
  const auto& unresolved = evaluated(GetParam()).unresolved;
  EXPECT_TRUE(unresolved.empty()) << unresolved.size() << " unresolved, first: " << unresolved.front();
}

TEST_P(ZooModel, MacsMatchReference) {
  const Expected& e = expected(GetParam());
  const std::uint64_t macs = evaluated(GetParam()).macs;
  EXPECT_EQ(macs, e.macs);
  if (e.published_gmacs > 0) {
    EXPECT_NEAR(static_cast<double>(macs) / 1e9, e.published_gmacs, e.published_gmacs * 0.005);
  }
}

// The same exact integers through rooflens' own loader, shape driver and cost registry.
TEST_P(ZooModel, RooflensAnalyzeGivesExactParamsAndMacs) {
  const Expected& e = expected(GetParam());
  const Summary& s = evaluated(GetParam());
  EXPECT_EQ(s.analyze_unresolved, 0);
  EXPECT_EQ(s.analyze_unknown, 0);
  EXPECT_EQ(s.analyze_params, e.params + e.stored_buffers);
  EXPECT_EQ(s.analyze_macs, e.macs);
  if (e.published_gmacs > 0) {
    EXPECT_NEAR(static_cast<double>(s.analyze_macs) / 1e9, e.published_gmacs, e.published_gmacs * 0.005);
  }
}

TEST_P(ZooModel, WeightsAreFiniteAndBatchNormVariancePositive) {
  EXPECT_TRUE(evaluated(GetParam()).weights_finite);
  EXPECT_TRUE(evaluated(GetParam()).bn_var_positive);
}

TEST_P(ZooModel, DefaultsUseNamedDynamicDims) {
  ZooOptions o;
  o.weights = false;
  const ModelSpec& spec = find_model(GetParam());
  const BuiltModel m = make_model(spec, o);
  for (const auto& in : m.model.graph().input()) {
    const auto& dims = in.type().tensor_type().shape().dim();
    EXPECT_EQ(dims[0].dim_param(), "batch") << in.name();
    if (spec.modality == Modality::Text) {
      EXPECT_EQ(dims[1].dim_param(), "seq") << in.name();
    } else {
      EXPECT_EQ(dims[2].dim_value(), spec.default_image);
    }
  }
  EXPECT_EQ(m.params, expected(GetParam()).params);
}

INSTANTIATE_TEST_SUITE_P(All, ZooModel,
                         ::testing::Values("resnet18", "resnet50", "mobilenet_v2", "vgg16", "squeezenet1_0",
                                           "vit_b_16", "bert_base", "gpt2", "llama"),
                         [](const auto& info) { return info.param; });

TEST(Zoo, RegistryListsEveryTestedModel) {
  EXPECT_EQ(models().size(), std::size(kExpected));
  for (const auto& m : models()) EXPECT_NO_THROW(expected(std::string(m.name)));
}

std::string serialized(const std::string& name, std::uint64_t seed) {
  ZooOptions o;
  o.seed = seed;
  std::string out;
  make_model(find_model(name), o).model.SerializeToString(&out);
  return out;
}

TEST(Zoo, WeightsAreDeterministicPerSeed) {
  const std::string a = serialized("squeezenet1_0", 7);
  EXPECT_EQ(a, serialized("squeezenet1_0", 7));
  EXPECT_NE(a, serialized("squeezenet1_0", 8));
}

TEST(Zoo, StaticBatchAndSequence) {
  ZooOptions o;
  o.weights = false;
  o.batch = 4;
  o.seq = 64;
  const BuiltModel m = make_model(find_model("gpt2"), o);
  const auto& dims = m.model.graph().input(0).type().tensor_type().shape().dim();
  EXPECT_EQ(dims[0].dim_value(), 4);
  EXPECT_EQ(dims[1].dim_value(), 64);
}

TEST(Zoo, ImageSizeChangesVitPositionTable) {
  ZooOptions o;
  o.weights = false;
  o.image = 384;  // (384/16)^2 + 1 = 577 tokens
  EXPECT_EQ(make_model(find_model("vit_b_16"), o).params, 86'567'656ULL + (577 - 197) * 768);
  EXPECT_EQ(make_model(find_model("resnet50"), o).params, 25'557'032ULL);  // global pooling: size-independent
}

TEST(Zoo, RejectsValuesItCannotBuild) {
  auto make = [](const char* name, auto set) {
    ZooOptions o;
    o.weights = false;
    set(o);
    return make_model(find_model(name), o);
  };
  EXPECT_THROW(find_model("resnet101"), UserError);
  EXPECT_THROW(make("vit_b_16", [](ZooOptions& o) { o.image = 200; }), UserError);
  EXPECT_THROW(make("vgg16", [](ZooOptions& o) { o.image = 256; }), UserError);
  EXPECT_THROW(make("bert_base", [](ZooOptions& o) { o.seq = 513; }), UserError);
  EXPECT_THROW(make("gpt2", [](ZooOptions& o) { o.image = 224; }), UserError);
  EXPECT_THROW(make("resnet18", [](ZooOptions& o) { o.seq = 16; }), UserError);
  EXPECT_THROW(make("resnet18", [](ZooOptions& o) { o.batch = 0; }), UserError);
  EXPECT_THROW(make("resnet18", [](ZooOptions& o) { o.opset = 12; }), UserError);
}

// Older opsets replace LayerNormalization-17 with primitive ops; the graph must still check and infer.
TEST(Zoo, Opset14BertChecksAndInfers) {
  ZooOptions o;
  o.opset = 14;
  o.batch = 1;
  o.seq = 16;
  BuiltModel m = make_model(find_model("bert_base"), o);
  EXPECT_NO_THROW(onnx::checker::check_model(m.model));
  EXPECT_NO_THROW(onnx::shape_inference::InferShapes(m.model, onnx::OpSchemaRegistry::Instance(),
                                                     onnx::ShapeInferenceOptions(true, 1, false)));
  EXPECT_EQ(m.params, 109'482'240ULL);
}

TEST(Zoo, ExternalDataFollowsOnnxConvention) {
  const auto dir = std::filesystem::temp_directory_path() / ("rooflens_zoo_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ZooOptions o;
  BuiltModel inline_model = make_model(find_model("squeezenet1_0"), o);
  BuiltModel external = make_model(find_model("squeezenet1_0"), o);
  const auto path = dir / "squeezenet.onnx";
  const SavedFiles saved = save_model(external.model, path, true);
  EXPECT_EQ(saved.data_path, dir / "squeezenet.onnx.data");
  EXPECT_EQ(std::filesystem::file_size(saved.data_path), saved.data_bytes);
  EXPECT_LT(std::filesystem::file_size(path), 100'000u);  // graph only

  onnx::ModelProto loaded;
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(loaded.ParseFromIstream(&in));
  std::ifstream data(saved.data_path, std::ios::binary);
  for (int i = 0; i < loaded.graph().initializer_size(); ++i) {
    const auto& t = loaded.graph().initializer(i);
    ASSERT_EQ(t.data_location(), onnx::TensorProto_DataLocation_EXTERNAL) << t.name();
    std::map<std::string, std::string> kv;
    for (const auto& e : t.external_data()) kv[e.key()] = e.value();
    EXPECT_EQ(kv["location"], "squeezenet.onnx.data");
    const std::uint64_t offset = std::stoull(kv["offset"]), length = std::stoull(kv["length"]);
    EXPECT_EQ(offset % kExternalAlignment, 0u) << t.name();
    std::string bytes(length, '\0');
    data.seekg(static_cast<std::streamoff>(offset));
    data.read(bytes.data(), static_cast<std::streamsize>(length));
    EXPECT_EQ(bytes, inline_model.model.graph().initializer(i).raw_data()) << t.name();
  }
  EXPECT_NO_THROW(onnx::checker::check_model(path.string()));  // resolves the external file next to the model
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rooflens::zoo
