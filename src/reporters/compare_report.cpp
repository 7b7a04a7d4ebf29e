// Terminal table and Markdown renderings of a Comparison. Both are built from the same sections (header,
// latency table, status-change tables, layer deltas, notes, summary); only the styling differs.
#include "reporters/compare_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/text_table.h"
#include "core/units.h"
#include "reporters/report_text.h"

namespace rooflens {
namespace {

struct Style {
  bool md = false;
  std::string name(const std::string& s) const { return md ? md_code(s) : s; }
  std::string table(const TextTable& t) const { return md ? t.markdown() : t.render(); }
  std::string heading(const std::string& s) const { return md ? "\n### " + s + "\n\n" : "\n" + s + ":\n"; }
  std::string line(const std::string& s) const { return md ? "\n" + s + "\n" : s + "\n"; }
  std::string subheading(const std::string& s) const { return md ? "\n**" + s + "**\n\n" : "\n" + s + "\n"; }
};

std::string signed_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.*f", decimals, v);
  return buf;
}

std::string signed_percent(double ratio) { return signed_fixed(ratio * 100, 1) + "%"; }

std::string p_text(double p) {
  char buf[32];
  if (p >= 0.001) std::snprintf(buf, sizeof buf, "%.3f", p);
  else std::snprintf(buf, sizeof buf, "%.1e", p);
  return buf;
}

// The interval of the median ratio, shown as an interval of the change (ratio - 1) like the change column.
std::string ci_text(const LatencyComparison& l) {
  if (!l.tested) return "-";
  return "[" + signed_percent(l.ci_low - 1) + ", " + signed_percent(l.ci_high - 1) + "]";
}

// Worst first: what a reader must act on leads every listing.
size_t severity(const std::string& v) {
  static const std::vector<std::string> order{
      verdict::kNewFailure,   verdict::kRegression, verdict::kStatusChanged, verdict::kOnlyBase,
      verdict::kOnlyNew,      verdict::kStillFailing, verdict::kImprovement, verdict::kFixed,
      verdict::kBelowThreshold, verdict::kWithinNoise, verdict::kInsufficient, verdict::kNotTimed, verdict::kSkipped};
  auto it = std::find(order.begin(), order.end(), v);
  return static_cast<size_t>(it - order.begin());
}

struct UnitsUsed {
  bool runs = false, single = false;  // items tested on repeated runs / on one run's samples
};

UnitsUsed units_used(const Comparison& c) {
  UnitsUsed u;
  for (const auto& i : c.items) {
    if (!i.latency || !i.latency->tested) continue;
    (i.latency->single_run() ? u.single : u.runs) = true;
  }
  if (!u.runs) u.single = true;  // nothing tested yet: state the rule a single run gets
  return u;
}

std::string runs_rule(const CompareOptions& o) {
  const std::string test = o.paired ? "paired t-test on the logs of NEW/BASE per pair of runs measured together"
                                    : "Welch's t-test on the logs of the run medians";
  return test + " p < " + exact(o.alpha) + " (two-sided; its " +
         percent(1 - o.alpha, 0) + " interval of the ratio excludes 1), with a change of the runs' geometric-mean "
         "median beyond ±" + percent(o.threshold, 1);
}

std::string single_rule(const CompareOptions& o) {
  return "Mann-Whitney U p < " + exact(o.alpha) + " (two-sided) and the " + percent(1 - o.alpha, 0) +
         " bootstrap interval of the median ratio excludes 1, with a median change beyond ±" + percent(o.threshold, 1);
}

std::string header(const Comparison& c, const Style& s) {
  const CompareOptions& o = c.options;
  UnitsUsed u = units_used(c);
  std::vector<std::string> rules;
  if (u.runs) rules.push_back((u.single ? "with 2+ runs per side: " : "") + runs_rule(o));
  if (u.single) rules.push_back((u.runs ? "with one run on a side: " : "") + single_rule(o));
  auto side = [&](const CompareSourceInfo& i) { return s.name(i.path) + " — " + s.name(i.description); };
  if (s.md) {
    std::string out = "## rooflens compare\n\n- **BASE**: " + side(c.base) + "\n- **NEW**: " + side(c.head) + "\n";
    for (const auto& r : rules) out += "- **significant**: " + r + "\n";
    return out;
  }
  std::string out = "BASE  " + side(c.base) + "\nNEW   " + side(c.head) + "\n";
  for (size_t k = 0; k < rules.size(); ++k) out += (k ? "      " : "test  ") + rules[k] + "\n";
  return out;
}

// Said above the table, not only among the notes: these verdicts rest on one run per side.
std::string single_run_warning(const std::vector<const ItemComparison*>& items, const Style& s) {
  size_t single = 0;
  for (const auto* i : items) single += i->latency->single_run();
  if (single == 0) return "";
  std::string what = single == items.size() ? "every item" : std::to_string(single) + " of " +
                                                                 std::to_string(items.size()) + " items";
  std::string text = "run-to-run variation NOT measured (" + what +
                     " had one run on a side): verdicts compare the noise inside one run and may reflect the "
                     "machine, not the change — time both sides with --repeat 5";
  return s.md ? "\n> **Warning**: " + text + "\n" : "\n!! " + text + "\n";
}

std::string unit_text(const LatencyComparison& l) {
  if (l.unit == test_unit::kRuns) return "runs";
  if (l.unit == test_unit::kPairs) return "pairs";
  if (l.unit == test_unit::kBlocks)
    return "blocks " + std::to_string(l.base_blocks) + "/" + std::to_string(l.new_blocks);
  if (l.unit == test_unit::kSamples) return "samples";
  return "-";
}

std::string latency_section(const Comparison& c, const Style& s) {
  std::vector<const ItemComparison*> items;
  for (const auto& i : c.items)
    if (i.latency) items.push_back(&i);
  if (items.empty()) return "";
  std::stable_sort(items.begin(), items.end(), [](const ItemComparison* a, const ItemComparison* b) {
    if (severity(a->verdict) != severity(b->verdict)) return severity(a->verdict) < severity(b->verdict);
    return std::fabs(a->latency->change) > std::fabs(b->latency->change);
  });
  TextTable t;
  t.columns = {{"model", false, 40}, {"config", false, 40}, {"base ms", true}, {"new ms", true}, {"change", true},
               {percent(1 - c.options.alpha, 0) + " CI", true}, {"p", true}, {"n", true}, {"runs", true},
               {"tested on"}, {"verdict"}, {"peak RSS base → new", true}};
  for (const auto* i : items) {
    const LatencyComparison& l = *i->latency;
    bool ratio = l.base_median_ms > 0 && l.new_median_ms > 0;
    t.rows.push_back({s.name(i->model), s.name(i->config), fixed(l.base_median_ms, 3), fixed(l.new_median_ms, 3),
                      ratio ? signed_percent(l.change) : "-", ci_text(l), l.tested ? p_text(l.p_value) : "-",
                      std::to_string(l.base_n) + "/" + std::to_string(l.new_n),
                      std::to_string(l.base_runs) + "/" + std::to_string(l.new_runs), unit_text(l), i->verdict,
                      i->base_peak_rss_bytes ? si_bytes(static_cast<double>(i->base_peak_rss_bytes)) + " → " +
                                                   si_bytes(static_cast<double>(i->new_peak_rss_bytes)) + " (" +
                                                   signed_percent(i->memory_change()) + ")"
                                             : "-"});
  }
  bool runs = false, blocks = false;
  for (const auto* i : items) {
    runs |= i->latency->unit == test_unit::kRuns || i->latency->unit == test_unit::kPairs;
    blocks |= i->latency->unit == test_unit::kBlocks;
  }
  std::string what = "latency (change = NEW/BASE - 1 of the medians of the raw end-to-end samples";
  if (runs) what += "; tested on runs: of the geometric means of the run medians, shown as base/new ms";
  if (blocks) what += "; on blocks: blocks of consecutive samples of one run";
  return single_run_warning(items, s) + s.heading(what + ")") + s.table(t);
}

struct StatusSection {
  const char* verdict;
  const char* title;
  bool base_side;  // whose error explains the row
};

std::string status_sections(const Comparison& c, const Style& s) {
  static const std::vector<StatusSection> sections{{verdict::kNewFailure, "new failures", false},
                                                   {verdict::kFixed, "fixed failures", true},
                                                   {verdict::kStatusChanged, "status changed", false},
                                                   {verdict::kOnlyBase, "only in BASE", true},
                                                   {verdict::kOnlyNew, "only in NEW", false}};
  std::string out;
  for (const auto& sec : sections) {
    TextTable t;
    t.columns = {{"model", false, 40}, {"config", false, 40}, {"BASE"}, {"NEW"},
                 {"error", false, 100}};
    for (const auto& i : c.items) {
      if (i.verdict != sec.verdict) continue;
      const std::string& err = sec.base_side || i.new_error.empty() ? i.base_error : i.new_error;
      t.rows.push_back({s.name(i.model), s.name(i.config), i.base_status.empty() ? "-" : i.base_status,
                        i.new_status.empty() ? "-" : i.new_status, err.empty() ? "" : s.name(err)});
    }
    if (!t.rows.empty()) out += s.heading(std::string(sec.title) + " (" + std::to_string(t.rows.size()) + ")") + s.table(t);
  }
  return out;
}

std::string layer_change(const LayerDelta& d) { return d.base_ms > 0 ? signed_percent(d.new_ms / d.base_ms - 1) : "-"; }

std::string nodes_text(const LayerDelta& d) {
  if (d.onnx_nodes.empty()) return "-";
  std::string first = (d.alias ? "alias of " : "") + d.onnx_nodes.front();
  return d.onnx_nodes.size() > 1 ? first + " +" + std::to_string(d.onnx_nodes.size() - 1) : first;
}

std::string more_line(size_t rows, size_t top, const Style& s) {
  if (rows <= top) return "";
  return s.line("… and " + std::to_string(rows - top) + " more (--top-layers 0 or --format json for all)");
}

std::string matched_layers(const std::vector<LayerDelta>& rows, size_t top, const Style& s) {
  TextTable t;
  t.columns = {{"#", true},           {"layer", false, 40}, {"op", false, 20},    {"base ms", true},
               {"new ms", true},      {"Δ ms", true},       {"change", true},     {"base share", true},
               {"new share", true},   {"Δ share", true}};
  for (size_t k = 0; k < rows.size() && k < top; ++k) {
    const LayerDelta& d = rows[k];
    t.rows.push_back({std::to_string(k + 1), s.name(d.name), s.name(d.op), fixed(d.base_ms, 3), fixed(d.new_ms, 3),
                      signed_fixed(d.delta_ms(), 3), layer_change(d), percent(d.base_share), percent(d.new_share),
                      signed_fixed(d.delta_share() * 100, 1) + " pp"});
  }
  return s.table(t);
}

std::string names_text(const std::vector<std::string>& names) {
  if (names.empty()) return "-";
  return names.size() == 1 ? names.front() : names.front() + " +" + std::to_string(names.size() - 1);
}

std::string regrouped_layers(const std::vector<LayerGroupDelta>& rows, size_t top, const Style& s) {
  TextTable t;
  t.columns = {{"#", true},         {"BASE layers", false, 40}, {"NEW layers", false, 40}, {"nodes", true},
               {"base ms", true},   {"new ms", true},           {"Δ ms", true},            {"change", true}};
  for (size_t k = 0; k < rows.size() && k < top; ++k) {
    const LayerGroupDelta& d = rows[k];
    t.rows.push_back({std::to_string(k + 1), s.name(names_text(d.base_layers)), s.name(names_text(d.new_layers)),
                      std::to_string(d.onnx_nodes.size()), fixed(d.base_ms, 3), fixed(d.new_ms, 3),
                      signed_fixed(d.delta_ms(), 3),
                      d.base_ms > 0 ? signed_percent(d.new_ms / d.base_ms - 1) : "-"});
  }
  return s.subheading("fused differently (" + std::to_string(rows.size()) + " groups of layers computing the same "
                      "nodes):") +
         s.table(t) + more_line(rows.size(), top, s);
}

std::string one_sided_layers(const std::vector<LayerDelta>& rows, bool base, size_t top, const Style& s) {
  TextTable t;
  t.columns = {{"layer", false, 40}, {"op", false, 20}, {"ONNX nodes", false, 40}, {"ms", true}, {"share", true}};
  for (size_t k = 0; k < rows.size() && k < top; ++k) {
    const LayerDelta& d = rows[k];
    t.rows.push_back({s.name(d.name), s.name(d.op), s.name(nodes_text(d)), fixed(base ? d.base_ms : d.new_ms, 3),
                      percent(base ? d.base_share : d.new_share)});
  }
  return s.subheading(std::string("only in ") + (base ? "BASE" : "NEW") + " (" + std::to_string(rows.size()) + "):") +
         s.table(t) + more_line(rows.size(), top, s);
}

std::string layer_sections(const Comparison& c, const CompareView& v, const Style& s) {
  if (v.top_layers == 0) return "";
  std::string out;
  for (const auto& i : c.items) {
    if (!i.layers) continue;
    const LayerComparison& l = *i.layers;
    size_t top = v.top_layers;
    // Layers that compute no ONNX node (an import without --model, aliases) are matched by their name instead.
    const auto by_name = std::count_if(l.matched.begin(), l.matched.end(),
                                       [](const LayerDelta& d) { return d.onnx_nodes.empty(); });
    const std::string matched =
        by_name == 0 ? " matched by ONNX nodes, "
        : by_name == static_cast<std::ptrdiff_t>(l.matched.size())
            ? " matched by name (they compute no ONNX node), "
            : " matched (" + std::to_string(by_name) + " of them by name: they compute no ONNX node), ";
    out += s.heading("layers of " + s.name(i.model) + " " + s.name(i.config) + ": " +
                     std::to_string(l.matched.size()) + matched +
                     std::to_string(l.regrouped.size()) + " fused differently, " +
                     std::to_string(l.only_base.size()) + " only in BASE, " + std::to_string(l.only_new.size()) +
                     " only in NEW");
    if (!l.matched.empty()) out += matched_layers(l.matched, top, s) + more_line(l.matched.size(), top, s);
    if (!l.regrouped.empty()) out += regrouped_layers(l.regrouped, top, s);
    if (!l.only_base.empty()) out += one_sided_layers(l.only_base, true, top, s);
    if (!l.only_new.empty()) out += one_sided_layers(l.only_new, false, top, s);
    if (!i.why_slower.empty()) {
      out += s.subheading("why NEW is slower (what the measurements show):");
      for (const std::string& why : i.why_slower) out += (s.md ? "- " : "  - ") + why + "\n";
    }
  }
  if (out.empty()) return "";
  return out + (s.md ? "" : "\n") + s.line("Layer times are medians of the profiled iterations; without raw per-iteration samples, "
                      "layer deltas are not tested for significance.");
}

std::string notes_section(const Comparison& c, const Style& s) {
  if (c.notes.empty()) return "";
  std::string out = s.heading("notes");
  for (const auto& n : c.notes) out += (s.md ? "- " : "  - ") + n + "\n";
  return out;
}

std::string render(const Comparison& c, const CompareView& v, const Style& s) {
  std::string out = header(c, s);
  out += latency_section(c, s);
  out += status_sections(c, s);
  out += layer_sections(c, v, s);
  out += notes_section(c, s);
  out += s.md ? "\n**Summary**: " + compare_summary_line(c) + "\n" : "\nsummary: " + compare_summary_line(c) + "\n";
  return out;
}

}  // namespace

std::string compare_summary_line(const Comparison& c) {
  VerdictCounts n = count_verdicts(c);
  const std::vector<std::tuple<size_t, const char*, const char*>> parts{
      {n.new_failures, "new failure", "new failures"},
      {n.regressions, "regression", "regressions"},
      {n.status_changed, "status changed", "status changed"},
      {n.only_base, "only in BASE", "only in BASE"},
      {n.only_new, "only in NEW", "only in NEW"},
      {n.still_failing, "still failing", "still failing"},
      {n.improvements, "improvement", "improvements"},
      {n.fixed, "fixed", "fixed"},
      {n.below_threshold, "below threshold", "below threshold"},
      {n.within_noise, "within noise", "within noise"},
      {n.insufficient, "with insufficient samples", "with insufficient samples"},
      {n.not_timed, "not timed", "not timed"},
      {n.skipped, "skipped", "skipped"}};
  std::string out;
  for (const auto& [count, one, many] : parts)
    if (count) out += (out.empty() ? "" : ", ") + std::to_string(count) + " " + (count == 1 ? one : many);
  if (out.empty()) out = "nothing to compare";
  size_t items = c.items.size();
  return out + " (" + std::to_string(items) + (items == 1 ? " item)" : " items)");
}

std::string compare_table(const Comparison& c, const CompareView& v) { return render(c, v, Style{false}); }
std::string compare_markdown(const Comparison& c, const CompareView& v) { return render(c, v, Style{true}); }

const std::map<std::string, CompareFormatter>& compare_formats() {
  static const std::map<std::string, CompareFormatter> f{
      {"table", compare_table}, {"md", compare_markdown}, {"csv", compare_csv}, {"json", compare_json}};
  return f;
}

}  // namespace rooflens
