#pragma once
// A hand-built profile report for unit tests of the report's readers (lint rules, whatif): nodes with tensors
// and dtypes, layers owning them, one run. Values are whatever a test sets; nothing is measured.
#include <string>
#include <vector>

#include "core/report.h"

namespace rooflens::testing {

class ReportBuilder {
 public:
  ReportBuilder() {
    r_.tool.command = "profile";
    r_.model.name = "hand-built";
    BackendInfo b;
    b.name = b.label = "onnxruntime";
    b.version = "1.30.0";
    b.runtime = "test";
    r_.backends.push_back(b);
    r_.runs.emplace_back();
    run().batch = 1;
    run().dims = {{"batch", 1}};
    run().threads = 1;
  }
  Report& report() { return r_; }
  ProfileRun& run() { return r_.runs.back(); }

  NodeAnalysis& node(const std::string& name, const std::string& op, std::vector<std::string> in,
                     std::vector<std::string> out, const std::string& dtype = "float") {
    NodeAnalysis n;
    n.index = static_cast<int64_t>(r_.model.analysis.nodes.size());
    n.name = name;
    n.op = op;
    n.graph = "main";
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    n.input_dtypes.assign(n.inputs.size(), dtype);
    n.output_dtypes.assign(n.outputs.size(), dtype);
    n.input_shapes.assign(n.inputs.size(), {1, 8});
    n.output_shapes.assign(n.outputs.size(), {1, 8});
    r_.model.analysis.nodes.push_back(std::move(n));
    return r_.model.analysis.nodes.back();
  }

  // A layer owning `nodes`, taking `ms`; flops/bytes set intensity; time shares are refreshed by finish().
  Layer& layer(const std::string& name, const std::string& op, std::vector<std::string> nodes, double ms,
               uint64_t flops = 0, uint64_t bytes = 1000) {
    Layer l;
    l.name = name;
    l.op = op;
    l.provider = "CPUExecutionProvider";
    l.onnx_nodes = std::move(nodes);
    l.time_ms = ms;
    l.flops = flops;
    l.bytes = bytes;
    l.intensity = bytes ? static_cast<double>(flops) / static_cast<double>(bytes) : 0;
    run().layers.push_back(std::move(l));
    return run().layers.back();
  }

  // Shares, coverage 1 and steady timings unless a test set them.
  Report& finish() {
    double total = 0;
    for (const auto& l : run().layers) total += l.time_ms;
    for (auto& l : run().layers) l.share = total > 0 ? l.time_ms / total : 0;
    if (run().coverage == 0) run().coverage = 1;
    if (run().latency_ms.n == 0) {
      run().latency_ms.n = 20;
      run().latency_ms.median = run().latency_ms.mean = run().latency_ms.p99 = total;
    }
    return r_;
  }

 private:
  Report r_;
};

}  // namespace rooflens::testing
