// `rooflens export REPORT.json --to csv|md|trace -o FILE`: a profile report for spreadsheets, pull requests and
// Perfetto.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/errors.h"
#include "reporters/export.h"
#include "reporters/report_text.h"

namespace rooflens::cli {
namespace {

struct ExportArgs {
  std::string report, to, output = "-";
  ExportOptions options;
  CLI::Option* what_opt = nullptr;
  CLI::Option* top_opt = nullptr;
};

// Written next to the target and renamed, so a failed export never leaves half a file.
void write_file(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!(f << text) || !f.flush()) {
      std::remove(tmp.c_str());
      throw UserError(path + ": cannot write the export");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw UserError(path + ": cannot write the export (" + ec.message() + ")");
  }
}

int run_export(const ExportArgs& a) {
  if (a.what_opt->count() && a.to != "csv") throw UsageError("--what applies to --to csv only");
  if (a.top_opt->count() && a.to != "md") throw UsageError("--top applies to --to md only");
  Report report = load_profile_report(a.report);
  std::string text = exporters().at(a.to)(report, a.options);
  if (a.output == "-") std::cout << text;
  else write_file(a.output, text);
  return 0;
}

}  // namespace

void setup_export(CLI::App& root, Action& action) {
  auto a = std::make_shared<ExportArgs>();
  CLI::App* cmd = root.add_subcommand("export", "A profile report as CSV, a Markdown PR comment, or a "
                                                "Chrome/Perfetto trace");
  cmd->add_option("report", a->report, "Profile report (rooflens profile -o REPORT.json)")->required();
  std::vector<std::string> formats;
  for (const auto& kv : exporters()) formats.push_back(kv.first);
  cmd->add_option("--to", a->to, "csv | md | trace")->required()->check(CLI::IsMember(formats));
  cmd->add_option("-o,--output", a->output, "Write to FILE (default: stdout)");
  a->what_opt = cmd->add_option("--what", a->options.what,
                                "csv: layers (one row per layer per run; default) or e2e (one row per run and per "
                                "failed configuration)")
                    ->check(CLI::IsMember(csv_tables()));
  a->top_opt = cmd->add_option("--top", a->options.top_layers, "md: layers listed per run (default 10; 0 = all)");
  cmd->footer(
      "Formats:\n"
      "  csv    exact values, RFC 4180 quoting, one table per file; every row starts with the run's\n"
      "         configuration (run, batch, threads, dim:NAME...); lists joined with ';'\n"
      "  md     model, backend, e2e table per run, top layers (first run open, others folded)\n"
      "  trace  Chrome trace-event JSON of one profiled iteration, one track per run; open in\n"
      "         https://ui.perfetto.dev or chrome://tracing (ts/dur in µs, args carry FLOPs, bytes, shapes)\n"
      "Examples:\n"
      "  rooflens export report.json --to csv -o layers.csv\n"
      "  rooflens export report.json --to csv --what e2e -o e2e.csv\n"
      "  rooflens export report.json --to md -o comment.md\n"
      "  rooflens export report.json --to trace -o trace.json");
  cmd->callback([a, &action] { action = [a] { return run_export(*a); }; });
}

}  // namespace rooflens::cli
