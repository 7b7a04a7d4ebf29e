// `rooflens lint REPORT.json`: the lint rules (src/lint/) over a profile report — what the numbers suggest
// doing, with the evidence — as a terminal list, Markdown or JSON; --fail-on for CI.
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "lint/lint.h"
#include "reporters/findings_report.h"
#include "reporters/report_text.h"

namespace rooflens::cli {
namespace {

struct LintArgs {
  std::string report, format = "table", fail_on, min_severity = "info", output;
  std::vector<std::string> rules;
  bool list = false, update = false;
};

std::string rule_list() {
  std::string out = "rule                 family        what it looks for\n";
  for (const auto& r : lint_rules()) {
    std::string id = r.id, family = r.family;
    out += id + std::string(id.size() < 21 ? 21 - id.size() : 1, ' ') + family +
           std::string(family.size() < 14 ? 14 - family.size() : 1, ' ') + r.summary + "\n" +
           std::string(35, ' ') + r.read_more + "\n";
  }
  return out;
}

void check_rules(const std::vector<std::string>& ids) {
  for (const auto& id : ids) {
    bool known = false;
    for (const auto& r : lint_rules()) known = known || id == r.id;
    if (!known) throw UsageError("--rule " + id + ": no such rule (rooflens lint --list-rules lists them)");
  }
}

int run_lint(const LintArgs& a) {
  if (a.list) {
    std::cout << rule_list();
    return 0;
  }
  if (a.report.empty()) throw UsageError("lint needs a REPORT.json (or --list-rules)");
  check_rules(a.rules);
  Report report = load_profile_report(a.report);
  // Always re-lint: a report keeps the findings of the rooflens that wrote it; these are this version's.
  report.findings = lint_report(report);
  if (a.update) write_file_atomically(a.report, report_to_json(report));
  Severity floor = parse_severity(a.min_severity, "--min-severity");
  FindingsView v;
  v.source = a.report;
  v.report = &report;
  for (const auto& f : *report.findings) {
    bool wanted = a.rules.empty() || std::find(a.rules.begin(), a.rules.end(), f.rule) != a.rules.end();
    if (wanted && f.severity >= floor) v.findings.push_back(f);
  }
  std::string text = findings_formats().at(a.format)(v);
  if (a.output.empty()) std::cout << text;
  else write_file_atomically(a.output, text);
  if (a.fail_on.empty()) return 0;
  Severity fail = parse_severity(a.fail_on, "--fail-on");
  for (const auto& f : v.findings)
    if (f.severity >= fail) {
      std::cerr << "rooflens: lint: " << severity_counts(v.findings) << " (--fail-on " << a.fail_on << ")\n";
      return 1;
    }
  return 0;
}

}  // namespace

void setup_lint(CLI::App& root, Action& action) {
  auto a = std::make_shared<LintArgs>();
  CLI::App* cmd = root.add_subcommand("lint", "What a profile report suggests doing: findings with evidence, the "
                                              "layers and ONNX nodes involved, a fix and a link");
  cmd->add_option("report", a->report, "Profile report (rooflens profile -o REPORT.json)");
  cmd->add_option("--format", a->format, "Output format (default table)")->check(CLI::IsMember({"table", "md", "json"}));
  cmd->add_option("--fail-on", a->fail_on, "Exit 1 when a finding of this severity or worse is shown (for CI)")
      ->check(CLI::IsMember({"warning", "error"}));
  cmd->add_option("--min-severity", a->min_severity, "Show findings of this severity or worse (default info)")
      ->check(CLI::IsMember({"info", "warning", "error"}));
  cmd->add_option("--rule", a->rules, "Show only this rule's findings (repeatable, or comma-separated)")->delimiter(',');
  cmd->add_option("-o,--output", a->output, "Write the findings here instead of stdout");
  cmd->add_flag("--update", a->update, "Also store the findings in REPORT.json (reports written before lint existed)");
  cmd->add_flag("--list-rules", a->list, "List the rules and exit");
  cmd->footer(
      "Rules run over every profiled run of the report; profile stores the same findings in the report, and its\n"
      "summary and HTML page show them. Each rule is explained in docs/lint.md.\n"
      "Exit codes: 0 ok, 1 a finding at or above --fail-on (or an unreadable report), 2 usage.\n"
      "Examples:\n"
      "  rooflens lint report.json\n"
      "  rooflens lint report.json --format md -o findings.md\n"
      "  rooflens lint report.json --min-severity warning --fail-on error\n"
      "  rooflens lint report.json --rule unfused-qdq,fp32-island --format json\n"
      "  rooflens lint --list-rules");
  cmd->callback([a, &action] { action = [a] { return run_lint(*a); }; });
}

}  // namespace rooflens::cli
