// `rooflens import FORMAT FILES...`: read the profile another tool wrote (trtexec / TREx, an ONNX Runtime profile
// from any execution provider, MegEngine, Intel Neural Engine, OpenVINO benchmark_app) into a report like
// `profile` writes, so top, export, report, compare and lint work on it.
#include <iostream>

#include "cli/commands.h"
#include "cli/db_flags.h"
#include "cli/shape_flags.h"
#include "compare/runtimes.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "importers/driver/import.h"
#include "importers/registry/registry.h"
#include "reporters/html_report.h"
#include "reporters/import_summary.h"
#include "reporters/profile_summary.h"
#include "reporters/serving_summary.h"

namespace rooflens::cli {
namespace {

struct ImportCommand {
  ImportSpec spec;
  std::vector<std::string> positional, options;
  ShapeFlags shape;
  std::string output, html;
  bool quiet = false, json = false;
  DbFlags db;
};

int run_import_command(ImportCommand& a) {
  if (a.positional.size() < 2) throw UsageError("import: give FORMAT and at least one file (import auto FILES...)");
  ImportSpec r = a.spec;
  r.format = a.positional.front();
  r.files.assign(a.positional.begin() + 1, a.positional.end());
  // A bad FORMAT is a usage error, before any file is read; an alias ("ort") becomes the format's name.
  if (r.format != "auto") r.format = importers::find_importer(r.format).name();
  if (!r.device.empty() && !r.roofs.empty()) throw UsageError("import: give --device or --roofs, not both");
  r.shapes = a.shape.overrides();
  a.db.validate();
  for (const auto& o : a.options) {
    auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--option expects KEY=VALUE, got '" + o + "'");
    r.options[o.substr(0, eq)] = o.substr(eq + 1);
  }
  ImportResult res = run_import(r);
  if (!a.quiet) {
    for (const auto& line : res.read) std::cerr << "rooflens import: " << res.format << ": " << line << "\n";
    if (!res.roofs.empty()) std::cerr << "rooflens import: roofs " << res.roofs << "\n";
  }
  if (a.json) std::cout << report_to_json(res.report);
  else if (res.report.serving) std::cout << serving_summary(*res.report.serving, res.report.model.name, res.format);
  else std::cout << profile_summary(res.report) << import_summary(res.report);
  if (!a.output.empty()) {
    write_file_atomically(a.output, report_to_json(res.report));
    if (!a.quiet) std::cerr << "rooflens import: report written to " << a.output << "\n";
  }
  if (!a.html.empty()) {
    write_file_atomically(a.html, html_report(res.report, compare_backends(res.report)));
    if (!a.quiet) std::cerr << "rooflens import: HTML report written to " << a.html << "\n";
  }
  // Stored under the device the files name, never this machine: another machine's figures are not its baseline.
  return store_report(a.db, res.report, "import", a.quiet, "", imported_machine(res.device, res.format));
}

}  // namespace

void setup_import(CLI::App& root, Action& action) {
  auto a = std::make_shared<ImportCommand>();
  std::string formats;
  for (const auto* i : importers::all_importers()) {
    std::string also;
    for (const auto& alias : i->aliases()) also += (also.empty() ? " (also " : ", ") + alias;
    formats += "  " + i->name() + (also.empty() ? "" : also + ")") + ": " + i->description() + "\n";
  }
  CLI::App* cmd = root.add_subcommand("import", "Read a profile another tool wrote (TensorRT trtexec/TREx, ONNX Runtime, "
                                                "MegEngine, Neural Engine, OpenVINO, Nsight, PyTorch) or a serving "
                                                "benchmark's result (vLLM, AIPerf) into a report");
  cmd->footer(
      "FORMAT is auto (from the files' content) or one of:\n" + formats +
      "Examples:\n"
      "  rooflens import auto engine.graph.json engine.profile.json engine.timing.json -o trt.json --html trt.html\n"
      "  rooflens import trtexec engine.profile.json --model model.onnx --device a100 -o trt.json\n"
      "  rooflens import vllm openai-5.5qps-Llama-3.1-8B.json -o served.json --db results.db\n"
      "  rooflens import onnxruntime onnxruntime_profile.json --model model.onnx -o ort-cuda.json\n"
      "  rooflens import megengine profile.json --option end=kern -o mge.json\n"
      "  rooflens import openvino benchmark_average_counters_report.csv exec_graph.xml --model model.onnx -o ov.json\n"
      "  rooflens import ncu kernels.csv -o ncu.json --html ncu.html  (ncu --csv [--page raw]; its roofline metrics)\n"
      "With --model, layers map to your ONNX nodes and take rooflens' own FLOPs and bytes; without it they keep what\n"
      "the files allow (TensorRT: MACs of convolutions and fully connected layers from their weight counts).\n"
      "Ceilings: --device NAME (datasheet; also chosen by the device the files name), or --roofs FILE; else the\n"
      "peaks a profile states itself (ncu's peak_sustained metrics).\n"
      "The run is stored in the results database (--db, as profile; --no-db for none) under the device the files\n"
      "name, as a machine of its own: `rooflens history --machine ID` shows it, never mixed with this machine's.");
  cmd->add_option("args", a->positional, "FORMAT then the files of one run")->required()->expected(2, -1);
  cmd->add_option("--model", a->spec.model, "The ONNX model the run ran: map layers to its nodes, count FLOPs")
      ->check(CLI::ExistingFile);
  cmd->add_option("--executed-graph", a->spec.executed_graph,
                  "The graph the runtime ran, as ONNX (ORT's optimizedModelFilePath): the live backend's mapping")
      ->check(CLI::ExistingFile);
  cmd->add_option("--device", a->spec.device, "Datasheet ceilings of this device (a100, h100-pcie, t4, l4, orin, ...)");
  cmd->add_option("--roofs", a->spec.roofs, "Ceilings from this file (the hardware JSON `rooflens hw` writes)")
      ->check(CLI::ExistingFile);
  a->shape.add_to(*cmd);
  cmd->add_option("--option", a->options, "A format's own choice, KEY=VALUE (megengine: clock=device|host, end=end|kern)");
  cmd->add_option("-o,--output", a->output, "Write the JSON report here");
  cmd->add_option("--html", a->html, "Also write the report as one self-contained HTML page");
  cmd->add_flag("--json", a->json, "Print the JSON report on stdout instead of the summary");
  cmd->add_flag("-q,--quiet", a->quiet, "Nothing on stderr but errors");
  a->db.add_to(*cmd);
  cmd->callback([a, &action] { action = [a] { return run_import_command(*a); }; });
}

}  // namespace rooflens::cli
