#include "backends/onnxruntime/ort_mapping_rules.h"

#include <regex>

namespace rooflens::ort {
namespace {

class OrtMappingRules : public MappingRules {
 public:
  std::vector<std::string> name_candidates(const std::string& name) const override {
    static const std::regex suffixes(R"((_nchwc|_token_\d+|_kernel_time)+$)");
    std::vector<std::string> out{name};
    std::string base = name.rfind("fused ", 0) == 0 ? name.substr(6) : name;
    if (base != name) out.push_back(base);
    std::string stripped = std::regex_replace(base, suffixes, "");
    if (stripped != base && !stripped.empty()) out.push_back(stripped);
    return out;
  }

  bool is_layout_kernel(const GraphView::Node& n) const override {
    return (n.domain == "com.microsoft.nchwc" && (n.op == "ReorderInput" || n.op == "ReorderOutput")) ||
           n.op == "MemcpyToHost" || n.op == "MemcpyFromHost";
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
