// The shape-value evaluator against ONNX's own reference outputs: every single-node test in Debian's
// libonnx-testdata whose op the evaluator handles is evaluated on its input_*.pb and compared with its output_*.pb
// (computed by ONNX's numpy reference implementation) — an independent check of every op's semantics.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <onnx/onnx_pb.h>

#include "model/proto_convert.h"
#include "model/shape_inference.h"

namespace fs = std::filesystem;
using namespace rooflens;

namespace {

const char* kNodeTests = "/usr/share/libonnx-testdata/data/node";

template <typename Proto>
bool read_proto(const fs::path& p, Proto& out) {
  std::ifstream f(p, std::ios::binary);
  return f && out.ParseFromIstream(&f);
}

bool same_elem(const Elem& got, const Elem& want) {
  if (!got.concrete() || !want.concrete()) return false;
  if (got.kind == Elem::Kind::Int && want.kind == Elem::Kind::Int) return got.i == want.i;
  const double g = got.kind == Elem::Kind::Int ? static_cast<double>(got.i) : got.f;
  const double w = want.kind == Elem::Kind::Int ? static_cast<double>(want.i) : want.f;
  if (std::isnan(w)) return std::isnan(g);
  return g == w || std::fabs(g - w) <= 1e-5 * std::max(1.0, std::fabs(w));
}

}  // namespace

TEST(ValueEvalReference, AgreesWithOnnxReferenceOutputsOfEverySupportedNodeTest) {
  if (!fs::exists(kNodeTests)) GTEST_SKIP() << "libonnx-testdata not installed";
  const ValueOpRegistry& registry = ValueOpRegistry::builtin();
  int evaluated = 0, outputs_compared = 0, not_computed = 0;
  std::vector<std::string> failures;
  for (const auto& dir : fs::directory_iterator(kNodeTests)) {
    onnx::ModelProto m;
    if (!read_proto(dir.path() / "model.onnx", m) || m.graph().node_size() != 1) continue;
    const onnx::NodeProto& np = m.graph().node(0);
    if (!registry.find(np.domain(), np.op_type())) continue;
    // ONNX's test data holds bfloat16 tensors as uint16 (numpy has no bfloat16): nothing to compare values with.
    if (dir.path().filename().string().find("BFLOAT16") != std::string::npos) continue;
    const fs::path data = dir.path() / "test_data_set_0";
    int opset = 1;
    for (const auto& o : m.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") opset = static_cast<int>(o.version());
    const Node node = convert_node(np, opset, nullptr);
    // Inputs: input_<i>.pb in graph-input order; a test whose inputs the evaluator cannot hold is skipped.
    std::vector<ShapeValue> values;
    std::vector<TensorInfo> types;
    bool usable = true;
    for (int i = 0; i < m.graph().input_size() && usable; ++i) {
      onnx::TensorProto t;
      std::optional<ShapeValue> v;
      if (read_proto(data / ("input_" + std::to_string(i) + ".pb"), t)) v = value_of_tensor(t);
      usable = v.has_value();
      if (!usable) break;
      types.push_back(make_tensor_info(v->dtype, v->dims));
      values.push_back(std::move(*v));
    }
    if (!usable) continue;
    EvalInput in;
    in.node = &node;
    // Graph inputs fill the node's inputs by name (optional inputs may be omitted with "").
    for (const auto& name : np.input()) {
      int k = -1;
      for (int i = 0; i < m.graph().input_size(); ++i)
        if (m.graph().input(i).name() == name) k = i;
      in.values.push_back(k >= 0 ? &values[static_cast<size_t>(k)] : nullptr);
      in.types.push_back(k >= 0 ? &types[static_cast<size_t>(k)] : nullptr);
    }
    for (const auto& a : np.attribute())
      if (a.type() == onnx::AttributeProto::TENSOR)
        if (auto v = value_of_tensor(a.t())) in.attr_values.emplace_back(a.name(), std::move(*v));
    for (const auto& o : m.graph().output()) in.out_dtypes.push_back(static_cast<DType>(o.type().tensor_type().elem_type()));
    const std::string test = dir.path().filename().string();
    EvalOutputs got;
    try {
      got = (*registry.find(np.domain(), np.op_type()))(in);
    } catch (const std::exception& e) {
      failures.push_back(test + ": refused: " + e.what());
      continue;
    }
    ++evaluated;
    for (int o = 0; o < m.graph().output_size(); ++o) {
      onnx::TensorProto t;
      if (!read_proto(data / ("output_" + std::to_string(o) + ".pb"), t)) continue;
      auto want = value_of_tensor(t);
      if (!want) continue;
      if (static_cast<size_t>(o) >= got.size() || !got[static_cast<size_t>(o)]) {
        ++not_computed;
        continue;
      }
      const ShapeValue& g = *got[static_cast<size_t>(o)];
      ++outputs_compared;
      if (g.dims != want->dims || g.elems.size() != want->elems.size()) {
        failures.push_back(test + ": output " + std::to_string(o) + " dims differ: " + g.to_string() + " vs " + want->to_string());
        continue;
      }
      for (size_t i = 0; i < g.elems.size(); ++i)
        if (!same_elem(g.elems[i], want->elems[i])) {
          failures.push_back(test + ": output " + std::to_string(o) + " element " + std::to_string(i) + ": " +
                             g.to_string() + " vs " + want->to_string());
          break;
        }
    }
  }
  std::cout << "value evaluator: " << evaluated << " node tests evaluated, " << outputs_compared
            << " outputs compared with ONNX's reference, " << not_computed << " not computed\n";
  for (const auto& f : failures) ADD_FAILURE() << f;
  EXPECT_GE(evaluated, 150);  // the op list covers a large part of the node tests
}
