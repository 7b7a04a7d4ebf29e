// `rooflens report REPORT.json -o report.html`: any rooflens report (profile or analyze) as one self-contained,
// offline HTML page.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "compare/runtimes.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "lint/lint.h"
#include "reporters/html_report.h"

namespace rooflens::cli {
namespace {

struct ReportArgs {
  std::string report, output;
  bool quiet = false;
};

Report read_report(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError(path + ": cannot open the report");
  std::stringstream text;
  text << f.rdbuf();
  try {
    return report_from_json(text.str());
  } catch (const std::exception& e) {
    throw UserError(path + ": " + e.what());
  }
}

// report.json -> report.html next to it.
std::string default_output(const std::string& report) {
  std::filesystem::path p(report);
  return p.replace_extension(".html").string();
}

int run_report(const ReportArgs& a) {
  Report report = read_report(a.report);
  if (!report.findings) report.findings = lint_report(report);  // written before lint existed: lint it for the page
  std::string page = html_report(report, compare_backends(report));
  if (a.output == "-") {
    std::cout << page;
    return 0;
  }
  std::string out = a.output.empty() ? default_output(a.report) : a.output;
  write_file_atomically(out, page);
  if (!a.quiet) std::cerr << "wrote " << out << " (" << (page.size() + 1023) / 1024 << " KiB)\n";
  return 0;
}

}  // namespace

void setup_report(CLI::App& root, Action& action) {
  auto a = std::make_shared<ReportArgs>();
  CLI::App* cmd = root.add_subcommand("report", "A report as one self-contained HTML page (roofline, layer table, "
                                                "breakdown, latency, sweep, timeline); works offline from file://");
  cmd->add_option("report", a->report, "Report JSON (rooflens profile -o, or rooflens analyze --format json)")
      ->required();
  cmd->add_option("-o,--output", a->output, "Write the page here (default: REPORT with .html; - for stdout)");
  cmd->add_flag("-q,--quiet", a->quiet, "Do not say where the page went");
  cmd->footer(
      "The page embeds the whole report and its own copy of the charting library: mail it, open it anywhere;\n"
      "it makes no network request. An analyze report gives the node table and the FLOPs breakdown.\n"
      "Examples:\n"
      "  rooflens report report.json -o report.html\n"
      "  rooflens analyze model.onnx --format json -o model.json && rooflens report model.json\n"
      "  rooflens profile model.onnx -o report.json --html report.html   (the same page, written by profile)");
  cmd->callback([a, &action] { action = [a] { return run_report(*a); }; });
}

}  // namespace rooflens::cli
