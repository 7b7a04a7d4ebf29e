#include "backends/onnxruntime/ort_mapping_rules.h"

#include <regex>

#include "backends/onnxruntime/ort_kernel_kind.h"

namespace rooflens::ort {
namespace {

class OrtMappingRules : public MappingRules {
 public:
  std::vector<std::string> name_candidates(const std::string& name) const override {
    // Renamings ORT appends: layout variants, generated-name counters, and the graph transformer that fused a node
    // into its successor ("<mul node>/QuickGeluFusion/", "<matmul>/MatMulAddFusion").
    static const std::regex suffixes(R"((_nchwc|_token_\d+|_kernel_time|/[A-Za-z0-9]+Fusion/?)+$)");
    std::vector<std::string> out{name};
    std::string base = name.rfind("fused ", 0) == 0 ? name.substr(6) : name;
    if (base != name) out.push_back(base);
    std::string stripped = std::regex_replace(base, suffixes, "");
    if (stripped != base && !stripped.empty()) out.push_back(stripped);
    // A kernel that now reads or writes a precision-changed copy is named after that copy ("<cast prefix><tensor>").
    for (size_t i = 0, n = out.size(); i < n; ++i)
      if (std::string t = without_cast_prefix(out[i]); !t.empty()) out.push_back(t);
    return out;
  }

  std::vector<std::string> tensor_candidates(const std::string& tensor) const override {
    std::string t = without_cast_prefix(tensor);
    if (t.empty()) return {};
    return {t};
  }

  // MatMulAddFusion turns a MatMul + Add of 3-D tensors into a Gemm between two Reshapes it names for the Gemm
  // ("gemm_input_reshape_token_N" before it, "gemm_output_reshape_token_N" after it), not after a user's node.
  int serves_neighbour(const std::string& name) const override {
    static const std::regex before(R"(^gemm_input_reshape(_token_\d+)?(_kernel_time)?$)");
    static const std::regex after(R"(^gemm_output_reshape(_token_\d+)?(_kernel_time)?$)");
    if (std::regex_match(name, before)) return 1;
    if (std::regex_match(name, after)) return -1;
    return 0;
  }

  bool is_layout_kernel(const GraphView::Node& n) const override {
    return (n.domain == "com.microsoft.nchwc" && (n.op == "ReorderInput" || n.op == "ReorderOutput")) ||
           n.op == "MemcpyToHost" || n.op == "MemcpyFromHost" || is_inserted_cast(n.op, n.name);
  }

  ForwardFusion forward_fusion(const GraphView::Node& n) const override {
    ForwardFusion f;
    f.residual_add = true;  // asked only of kernels found by name: NCHWc convolutions, which fuse a "Sum"
    auto a = n.attributes.find("activation");
    if (a != n.attributes.end()) f.activation = a->second;
    return f;
  }
};

}  // namespace

const MappingRules& mapping_rules() {
  static const OrtMappingRules rules;
  return rules;
}

}  // namespace rooflens::ort
