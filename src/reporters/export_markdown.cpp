// Markdown export: a summary that reads well as a GitHub pull-request comment. Model-supplied text sits in code
// spans (and is HTML-escaped inside <summary>), so names with `|`, backticks or HTML stay literal text.
#include <algorithm>

#include "core/text_table.h"
#include "core/units.h"
#include "reporters/export.h"
#include "reporters/report_text.h"
#include "reporters/top_report.h"

namespace rooflens {
namespace {

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\n': case '\r': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

std::string markdown_header(const Report& r) {
  std::string out = "## rooflens profile: " + md_code(r.model.name) + "\n\n";
  for (const auto& b : r.backends) {
    out += "- **backend**" + (r.backends.size() > 1 ? " " + md_code(b.label) : "") + ": " +
           md_code(b.runtime.empty() ? b.name : b.runtime);
    if (!b.options.empty()) out += " with " + md_code(options_text(b));
    out += "\n";
  }
  const Totals& t = r.model.analysis.totals;
  out += "- **model**: " + std::to_string(t.nodes) + " nodes, " + si(static_cast<double>(t.params)) + " params, " +
         si(static_cast<double>(t.flops)) + " FLOPs at the analysed shapes\n";
  if (r.hardware)
    out += "- **roofs**: " + r.hardware->source + (r.hardware->quick ? " (quick)" : "") + " on " +
           md_code(r.hardware->machine.model) + "\n";
  if (!r.tool.version.empty()) out += "- **tool**: rooflens " + md_code(r.tool.version) + "\n";
  return out;
}

std::string md_e2e_table(const Report& r) {
  TextTable t;
  t.columns = {{"config"}, {"p50 ms", true}, {"p90 ms", true}, {"p99 ms", true}, {"mean ms", true},
               {"CV", true}, {"n", true}, {"items/s", true}, {"GFLOP/s", true}, {"coverage", true},
               {"peak RSS", true}};
  for (const auto& run : r.runs) {
    const LatencyStats& s = run.latency_ms;
    t.rows.push_back({md_code(run.label()), fixed(s.median, 3), fixed(s.p90, 3), fixed(s.p99, 3), fixed(s.mean, 3),
                      percent(s.cv), std::to_string(s.n), fixed(run.throughput_per_s, 1), fixed(run.gflops, 1),
                      run.layers.empty() || run.coverage <= 0 ? "-" : percent(run.coverage),
                      si_bytes(static_cast<double>(run.peak_rss_bytes))});
  }
  return "### End-to-end latency (profiling off)\n\n" + t.markdown();
}

// The top layers of one run through `rooflens top`'s selection and columns (default query: by time).
std::string layers_table(const Report& r, size_t run_index, size_t top) {
  TopView v;
  v.query.top = top;
  v.batch = r.runs[run_index].batch;
  TopResult t;
  t.report = &r;
  t.run_index = run_index;
  t.view = v;
  t.selection = select_layers(r.runs[run_index], v.query);
  std::string table = top_markdown_table(t, {"rank", "name", "op", "time_ms", "share", "cumulative", "flops",
                                             "gflops", "gbps", "intensity", "bound", "efficiency"});
  const ProfileRun& run = r.runs[run_index];
  return table + "\n" + std::to_string(t.selection.rows.size()) + " of " + std::to_string(run.layers.size()) +
         " layers; " + percent(t.selection.rows.empty() ? 0 : t.selection.rows.back().cumulative) +
         " of layer time.\n";
}

std::string markdown_layer_sections(const Report& r, size_t top) {
  std::string out;
  bool first = true;
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const ProfileRun& run = r.runs[i];
    if (run.layers.empty()) continue;
    std::string title = "Top " + std::to_string(top ? std::min(top, run.layers.size()) : run.layers.size()) +
                        " layers, ";
    if (first) {
      out += "\n### " + title + md_code(run.label()) + "\n\n" + layers_table(r, i, top);
    } else {  // further runs fold away so the comment stays short
      out += "\n<details><summary>" + title + html_escape(run.label()) + "</summary>\n\n" +
             layers_table(r, i, top) + "\n</details>\n";
    }
    first = false;
  }
  return out;
}

std::string notes(const Report& r) {
  std::vector<std::string> warnings;
  for (const auto& w : roof_warnings(r)) warnings.push_back(md_code(w));
  for (const auto& w : r.warnings) warnings.push_back(md_code(w));
  for (const auto& run : r.runs)
    for (const auto& w : run.warnings) warnings.push_back(md_code(run.label() + ": " + w));
  std::string out;
  if (!warnings.empty()) {
    out += "\n### Warnings\n\n";
    for (const auto& w : warnings) out += "- " + w + "\n";
  }
  if (!r.failures.empty()) {
    out += "\n### Failures\n\n";
    for (const auto& f : r.failures)
      out += "- " + md_code(f.label()) + " " + f.stage + ", " + f.kind + ": " +
             md_code(f.message) + "\n";
  }
  if (r.partial) out += "\n_Interrupted: the report holds the configurations that finished._\n";
  return out;
}

}  // namespace

std::string export_markdown(const Report& r, const ExportOptions& o) {
  return markdown_header(r) + "\n" + md_e2e_table(r) + markdown_layer_sections(r, o.top_layers) + notes(r);
}

}  // namespace rooflens
