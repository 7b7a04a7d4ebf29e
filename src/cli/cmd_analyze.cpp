// `rooflens analyze MODEL`: static per-node cost table (no inference run).
#include <fstream>
#include <iostream>
#include <memory>

#include "analysis/analyze.h"
#include "analysis/check_runtime.h"
#include "backends/registry/registry.h"
#include "cli/commands.h"
#include "cli/shape_flags.h"
#include "core/errors.h"
#include "reporters/analysis_report.h"

namespace rooflens::cli {
namespace {

struct AnalyzeArgs {
  std::string model;
  ShapeFlags shape;
  std::string format = "table";
  std::string output;
  size_t top = 0;
  std::string sort;
  bool json = false;
  bool check_runtime = false;
  std::string backend = "onnxruntime";
};

int run_analyze(const AnalyzeArgs& a) {
  if (a.check_runtime) {
    CheckRuntimeOptions c;
    c.model = a.model;
    c.shapes = a.shape.overrides();
    c.json = a.json;
    c.progress = [](const std::string& what) { std::cerr << "rooflens analyze: " << what << "\n"; };
    auto backend = [&a] { return make_backend(parse_backend_spec(a.backend)); };
    if (a.output.empty() || a.output == "-") return check_runtime(c, backend, std::cout);
    std::ofstream f(a.output, std::ios::binary);
    const int rc = check_runtime(c, backend, f);
    if (!f) throw UserError(a.output + ": cannot write the check");
    return rc;
  }
  AnalyzeOptions opts;
  opts.shapes = a.shape.overrides();
  Report report = analyze_model_file(a.model, opts);
  AnalysisView view{a.top, a.sort};
  std::string text = analysis_reporters().at(a.json ? "json" : a.format)(report, view);
  if (a.output.empty() || a.output == "-") {
    std::cout << text;
  } else {
    std::ofstream f(a.output, std::ios::binary);
    if (!(f << text)) throw UserError(a.output + ": cannot write the report");
  }
  return 0;
}

}  // namespace

void setup_analyze(CLI::App& root, Action& action) {
  auto args = std::make_shared<AnalyzeArgs>();
  auto* cmd = root.add_subcommand("analyze", "Static analysis: shapes, FLOPs, MACs, params and bytes per node");
  cmd->add_option("model", args->model, "ONNX model file")->required();
  args->shape.add_to(*cmd);
  std::vector<std::string> formats;
  for (const auto& [name, _] : analysis_reporters()) formats.push_back(name);
  cmd->add_option("--format", args->format, "Output format")->check(CLI::IsMember(formats));
  cmd->add_flag("--json", args->json, "Same as --format json");
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of stdout");
  cmd->add_option("--top", args->top, "Show only the first N nodes after sorting (0 = all)");
  cmd->add_option("--sort", args->sort, "Sort nodes by flops|macs|params|bytes|intensity|name|op (default: graph order)")
      ->check(CLI::IsMember(analysis_sort_keys()));
  cmd->add_flag("--check-runtime", args->check_runtime,
                "Run the model once on ONNX Runtime with every intermediate tensor of the main graph exposed as an "
                "output and compare each static shape with the runtime's: prints mismatches and tensors left "
                "unresolved; exit 1 when a shape differs");
  cmd->add_option("-B,--backend", args->backend, "Runtime for --check-runtime, as -B of profile (default onnxruntime)");
  cmd->footer(
      "Examples:\n"
      "  rooflens analyze resnet50.onnx --top 10 --sort flops\n"
      "  rooflens analyze bert.onnx --dim seq=128 --batch 8\n"
      "  rooflens analyze model.onnx --shape input:1x3x224x224 --format json -o report.json\n"
      "  rooflens analyze silero_vad.onnx --shape input:1x512 --shape state:2x1x128 --value sr=16000\n"
      "  rooflens analyze vit.onnx --batch 2 --check-runtime");
  cmd->callback([args, &action] { action = [args] { return run_analyze(*args); }; });
}

}  // namespace rooflens::cli
