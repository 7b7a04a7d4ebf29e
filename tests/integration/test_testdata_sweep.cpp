// Every model Debian's libonnx-testdata ships is analysed in-process: no crash, and wherever libonnx's own
// full shape inference resolves every node, rooflens must resolve every node too.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "analysis/analyze.h"
#include "core/errors.h"

namespace fs = std::filesystem;
using namespace rooflens;

namespace {

const char* kTestData = "/usr/share/libonnx-testdata/data";

// True when libonnx's official inference (with data propagation) gives every node output a full shape.
bool onnx_resolves_fully(const std::string& path) {
  onnx::ModelProto m;
  std::ifstream f(path, std::ios::binary);
  if (!m.ParseFromIstream(&f)) return false;
  // Same default as rooflens: dynamic leading dims become 1.
  for (auto& in : *m.mutable_graph()->mutable_input()) {
    auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int i = 0; i < shape->dim_size(); ++i)
      if (!shape->dim(i).has_dim_value()) {
        if (i != 0) return false;
        shape->mutable_dim(i)->set_dim_value(1);
      }
  }
  try {
    onnx::ShapeInferenceOptions opts(false, 0, true);
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), opts);
  } catch (const std::exception&) {
    return false;
  }
  std::unordered_map<std::string, const onnx::TypeProto*> types;
  for (const auto& vi : m.graph().value_info()) types[vi.name()] = &vi.type();
  for (const auto& vi : m.graph().output()) types[vi.name()] = &vi.type();
  for (const auto& n : m.graph().node())
    for (const auto& out : n.output()) {
      if (out.empty()) continue;
      auto it = types.find(out);
      if (it == types.end() || !it->second->has_tensor_type() || !it->second->tensor_type().has_shape()) return false;
      for (const auto& d : it->second->tensor_type().shape().dim())
        if (!d.has_dim_value()) return false;
    }
  return true;
}

}  // namespace

TEST(TestdataSweep, EveryModelAnalysesWithoutCrashAndResolvesWhereOnnxDoes) {
  if (!fs::exists(kTestData)) GTEST_SKIP() << "libonnx-testdata not installed";
  int models = 0, fully_resolved = 0, with_unknown = 0, refused = 0;
  std::vector<std::string> regressions;
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    for (const auto& dir : fs::directory_iterator(fs::path(kTestData) / suite)) {
      fs::path model = dir.path() / "model.onnx";
      if (!fs::exists(model)) continue;
      ++models;
      Report r;
      try {
        r = analyze_model_file(model.string());
      } catch (const UserError& e) {
        ++refused;  // a clear one-line refusal is acceptable, a crash is not
        std::string msg = e.what();
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        EXPECT_NE(msg.find(model.string()), std::string::npos) << "error must name the file: " << msg;
        continue;
      }
      const auto& t = r.model.analysis.totals;
      if (t.unresolved_nodes == 0) ++fully_resolved;
      if (t.unknown_cost_nodes > 0) ++with_unknown;
      bool main_unresolved = false;  // libonnx's verdict below covers the main graph only
      for (const auto& n : r.model.analysis.nodes) main_unresolved |= n.graph == "main" && !n.shapes_resolved;
      if (main_unresolved && onnx_resolves_fully(model.string()))
        regressions.push_back(model.string());
    }
  }
  std::cout << "libonnx-testdata: " << models << " models, " << fully_resolved << " fully resolved, "
            << with_unknown << " with cost-unknown ops, " << refused << " refused with an error\n";
  EXPECT_GT(models, 1000);
  for (const auto& m : regressions) ADD_FAILURE() << "libonnx resolves every shape but rooflens does not: " << m;
}
