// The lint rule registry: one line per rule family. A new family (TensorRT's engine lints, OpenVINO's precision
// lints, once their importers fill the report) is one rules_<family>.cpp plus one line here.
#include "lint/rule.h"

namespace rooflens {

const std::vector<LintRule>& lint_rules() {
  static const RuleList rules = [] {
    RuleList r;
    add_placement_rules(r);     // rules_placement.cpp: kernels left on the CPU in a GPU run, device copies
    add_layout_rules(r);        // rules_layout.cpp: inserted layout conversions
    add_quantization_rules(r);  // rules_quantization.cpp: unfused Q/DQ, fp32 islands
    add_fusion_rules(r);        // rules_fusion.cpp: unfused memory-bound chains, run-time shape computation
    add_timing_rules(r);        // rules_timing.cpp: headroom, time between kernels
    add_setup_rules(r);         // rules_setup.cpp: threads above physical cores, unstable timings
    add_memory_rules(r);        // rules_memory.cpp: arena growth, packed copies, allocator retention, working set
    add_accuracy_rules(r);      // rules_accuracy.cpp: u8s8 int8 kernels that saturate on x86 CPUs without VNNI
    return r;
  }();
  return rules;
}

}  // namespace rooflens
