// `rooflens whatif REPORT.json`: what the measured layers would take on other ceilings (--roofs, --device),
// with another thread count, dtype, batch or sparse weights — every assumption printed, nothing measured.
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/output_flags.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "hw/datasheets.h"
#include "hw/roof_cache.h"
#include "lint/lint.h"
#include "reporters/html_report.h"
#include "reporters/report_text.h"
#include "reporters/whatif_report.h"
#include "whatif/whatif.h"

namespace rooflens::cli {
namespace {

struct WhatIfArgs {
  std::string report, roofs, device, quantize, sparse, perf_table, write_perf_table, format = "table", out, html;
  int64_t threads = 0, batch = 0;
  size_t top = 15;
  bool list_devices = false;
};

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError(path + ": cannot open");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string device_list() {
  std::string out = fmt::format("{:<22} {:<34} {:>9} {:>9} {:>9} {:>9} {:>8}  {}\n", "DEVICE", "NAME", "FP32", "TF32",
                                "FP16", "INT8", "GB/s", "SOURCE (datasheet peaks, dense, GFLOP/s | GOP/s)");
  for (const auto& d : hw::datasheet_devices())
    out += fmt::format("{:<22} {:<34} {:>9} {:>9} {:>9} {:>9} {:>8}  {}\n", d.id, d.name, d.fp32, d.tf32 ? fmt::format("{}", d.tf32) : "-",
                       d.fp16, d.int8, d.memory_gbps, d.source_title);
  return out;
}

// The weight shapes of the report's sparse-able layers with the ratio assumed today: a table to edit.
PerfTable shapes_table(const Report& r, const WhatIfOptions& o) {
  SparseSpec s = o.sparse.value_or(SparseSpec{0.9, "4x1"});
  std::set<std::string> seen;
  PerfTable t;
  for (const auto& n : r.model.analysis.nodes) {
    if (n.params == 0 || (n.op != "MatMul" && n.op != "Gemm" && n.op != "Conv") || n.input_shapes.size() < 2) continue;
    std::string shape;
    for (int64_t d : n.input_shapes[1]) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    if (!seen.insert(shape).second) continue;
    t.rows.push_back({shape, s.pattern, s.ratio, lookup_perf_ratio(o.perf_table, shape, s.pattern, s.ratio).value});
  }
  return t;
}

WhatIfOptions whatif_options_of(const WhatIfArgs& a) {
  WhatIfOptions o;
  if (!a.roofs.empty()) {
    o.roofs = hw::load_roofs_file(a.roofs);
    o.roofs_label = a.roofs;
  }
  if (!a.device.empty()) {
    const hw::DatasheetDevice& d = hw::find_datasheet_device(a.device);
    o.roofs = hw::datasheet_hardware(d);
    o.roofs_label = d.name + " (datasheet)";
  }
  if (a.threads > 0) o.threads = a.threads;
  if (a.batch > 0) o.batch = a.batch;
  o.quantize = a.quantize;
  if (!a.sparse.empty()) o.sparse = parse_sparse(a.sparse);
  if (!a.perf_table.empty()) o.perf_table = parse_perf_table(read_text(a.perf_table), a.perf_table);
  return o;
}

int run_whatif(const WhatIfArgs& a) {
  if (a.list_devices) {
    std::cout << device_list();
    return 0;
  }
  if (a.report.empty()) throw UsageError("whatif needs a REPORT.json (or --list-devices)");
  Report report = load_profile_report(a.report);
  WhatIfOptions o = whatif_options_of(a);
  if (!a.write_perf_table.empty()) {
    write_file_atomically(a.write_perf_table, perf_table_csv(shapes_table(report, o)));
    std::cerr << "rooflens whatif: wrote the perf-ratio table of " << a.report << "'s weight shapes to "
              << a.write_perf_table << " (edit perf_ratio, then --perf-table)\n";
    if (!o.roofs && !o.threads && o.quantize.empty() && !o.batch && !o.sparse) return 0;
  }
  report.whatif = project(report, o);
  WhatIfView v{&report, a.top};
  std::cout << whatif_formats().at(a.format)(v);
  if (!a.out.empty() || !a.html.empty()) {
    if (!report.findings) report.findings = lint_report(report);
    if (!a.out.empty()) write_file_atomically(a.out, report_to_json(report));
    if (!a.html.empty()) write_file_atomically(a.html, html_report(report));
  }
  return 0;
}

}  // namespace

void setup_whatif(CLI::App& root, Action& action) {
  auto a = std::make_shared<WhatIfArgs>();
  CLI::App* cmd = root.add_subcommand("whatif", "Project a profile onto other ceilings, threads, dtype, batch or "
                                                "sparsity, layer by layer, with every assumption printed");
  cmd->add_option("report", a->report, "Profile report (rooflens profile -o REPORT.json)");
  auto* roofs = cmd->add_option("--roofs", a->roofs, "Another machine's ceilings: a report or hardware JSON "
                                                     "(rooflens hw --json, or a datasheet)");
  cmd->add_option("--device", a->device, "A datasheet device (rooflens whatif --list-devices)")->excludes(roofs);
  cmd->add_option("--threads", a->threads, "Intra-op threads, from the report's per-thread roofs")->check(CLI::Range(1, 4096));
  cmd->add_option("--quantize", a->quantize, "Compute dtype: int8 or fp16 (bytes and the dtype's ceiling)")
      ->check(CLI::IsMember({"int8", "fp16"}));
  cmd->add_option("--batch", a->batch, "Batch size (FLOPs and activation bytes scale, weights do not)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--sparse", a->sparse, "Sparse weights in MatMul/Gemm/Conv: RATIO[:PATTERN], e.g. 0.9:4x1");
  cmd->add_option("--perf-table", a->perf_table, "Perf ratios by weight shape (CSV weight_shape,pattern,"
                                                  "sparse_ratio,perf_ratio); default: the ideal 1/(1-ratio)");
  cmd->add_option("--write-perf-table", a->write_perf_table, "Write the report's weight shapes as a perf-ratio table "
                                                              "to edit");
  cmd->add_option("--format", a->format, "Output format (default table)")->check(CLI::IsMember({"table", "md", "json"}));
  cmd->add_option("--top", a->top, "Layers shown per run, most measured time first (default 15; 0 = all)");
  add_output_option(*cmd, a->out, "Write the report with the projection (\"whatif\") to this JSON", "report-out");
  cmd->add_option("--html", a->html, "Write the HTML report with the projection as a second set of roofline dots");
  cmd->add_flag("--list-devices", a->list_devices, "List the datasheet devices and exit");
  cmd->footer(
      "Each layer keeps its measured efficiency (achieved / what the roofline allowed it) and gets the target's\n"
      "roofline at its new intensity; the time between kernels is kept. The options combine (--device with\n"
      "--quantize and --batch, ...). Datasheet ceilings are labelled as such; nothing here is measured.\n"
      "Examples:\n"
      "  rooflens whatif report.json --threads 2\n"
      "  rooflens whatif report.json --device a100 --quantize fp16\n"
      "  rooflens whatif report.json --batch 8 --html projected.html\n"
      "  rooflens whatif report.json --roofs other-machine.json --format md\n"
      "  rooflens whatif report.json --sparse 0.9:4x1 --write-perf-table ratios.csv\n"
      "  rooflens whatif report.json --sparse 0.9:4x1 --perf-table ratios.csv\n"
      "  rooflens whatif --list-devices");
  cmd->callback([a, &action] { action = [a] { return run_whatif(*a); }; });
}

}  // namespace rooflens::cli
