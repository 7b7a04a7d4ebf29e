#include "reporters/findings_report.h"

#include <sstream>

#include "core/json_fields.h"
#include "core/text_table.h"
#include "core/units.h"
#include "reporters/report_text.h"

namespace rooflens {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return s;
}

// Names, the first `n` then "(+k more)".
std::string some(const std::vector<std::string>& names, size_t n) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < n; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > n) s += ", … (+" + std::to_string(names.size() - n) + ")";
  return s;
}

// Greedy word wrap at `width` columns, continuation lines indented by `indent`.
std::string wrap(const std::string& text, size_t width, const std::string& indent) {
  std::istringstream words(text);
  std::string word, out, line;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n" + indent;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

std::string evidence_line(const Finding& f, const std::string& sep) {
  std::string s;
  for (const auto& e : f.evidence) s += (s.empty() ? "" : sep) + e.name + " " + evidence_text(e);
  return s;
}

std::string heading(const FindingsView& v) {
  const Report& r = *v.report;
  return (r.model.name.empty() ? v.source : r.model.name) + " — " + std::to_string(r.runs.size()) + " run(s), " +
         std::to_string(v.findings.size()) + " finding(s)" +
         (v.findings.empty() ? "" : " (" + severity_counts(v.findings) + ")");
}

std::string table(const FindingsView& v) {
  std::ostringstream out;
  out << heading(v) << "\n";
  if (v.findings.empty()) return out.str() + "no findings\n";
  TextTable t;
  t.columns = {{"#", true}, {"severity"}, {"rule"}, {"run", false, 28}, {"finding", false, 100}};
  for (size_t i = 0; i < v.findings.size(); ++i) {
    const Finding& f = v.findings[i];
    t.rows.push_back({std::to_string(i + 1), to_string(f.severity), f.rule, f.run.empty() ? "-" : f.run, f.title});
  }
  out << "\n" << t.render();
  const std::string pad(12, ' ');
  for (size_t i = 0; i < v.findings.size(); ++i) {
    const Finding& f = v.findings[i];
    out << "\n" << i + 1 << ". " << upper(to_string(f.severity)) << "  " << f.rule << "  (" << (f.run.empty() ? "report" : f.run)
        << ")\n   " << wrap(f.title, 108, "   ") << "\n";
    if (!f.evidence.empty()) out << "   evidence " << wrap(evidence_line(f, " · "), 100, pad) << "\n";
    if (!f.layers.empty()) out << "   layers   " << wrap(some(f.layers, 6), 100, pad) << "\n";
    if (!f.onnx_nodes.empty() && f.onnx_nodes != f.layers) out << "   nodes    " << wrap(some(f.onnx_nodes, 6), 100, pad) << "\n";
    if (!f.mitigation.empty()) out << "   fix      " << wrap(f.mitigation, 100, pad) << "\n";
    if (!f.read_more.empty()) out << "   more     " << f.read_more << "\n";
  }
  return out.str();
}

std::string markdown(const FindingsView& v) {
  std::ostringstream out;
  out << "### rooflens lint: " << md_code(v.report->model.name.empty() ? v.source : v.report->model.name) << "\n\n";
  if (v.findings.empty()) return out.str() + "No findings.\n";
  out << v.findings.size() << " finding(s): " << severity_counts(v.findings) << ".\n\n";
  TextTable t;
  t.columns = {{"#", true}, {"severity"}, {"rule"}, {"run"}, {"finding"}};
  for (size_t i = 0; i < v.findings.size(); ++i) {
    const Finding& f = v.findings[i];
    t.rows.push_back({std::to_string(i + 1), "**" + std::string(to_string(f.severity)) + "**", md_code(f.rule),
                      f.run.empty() ? "-" : f.run, f.title});
  }
  out << t.markdown() << "\n";
  for (size_t i = 0; i < v.findings.size(); ++i) {
    const Finding& f = v.findings[i];
    out << "<details><summary>" << i + 1 << ". " << md_code(f.rule) << " — what to do</summary>\n\n";
    if (!f.evidence.empty()) out << "- evidence: " << evidence_line(f, "; ") << "\n";
    if (!f.layers.empty()) {
      std::vector<std::string> coded;
      for (size_t k = 0; k < f.layers.size() && k < 6; ++k) coded.push_back(md_code(f.layers[k]));
      out << "- layers: " << join(coded, ", ") << (f.layers.size() > 6 ? ", …" : "") << "\n";
    }
    out << "- fix: " << f.mitigation << "\n";
    if (!f.read_more.empty()) out << "- read more: <" << f.read_more << ">\n";
    out << "\n</details>\n\n";
  }
  return out.str();
}

std::string json_text(const FindingsView& v) {
  json j{{"source", v.source}, {"model", v.report->model.name}, {"findings", v.findings}};
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string evidence_text(const Evidence& e) {
  if (e.unit == "ratio") return fixed(e.value * 100, 1) + "%";
  if (e.unit == "ms") return fixed(e.value, 3) + " ms";
  if (e.unit == "us") return fixed(e.value, 1) + " us";
  if (e.unit == "bytes") return si_bytes(e.value);
  if (e.unit == "count" || e.unit == "threads") return exact(e.value);
  return exact(e.value) + (e.unit.empty() ? "" : " " + e.unit);
}

std::string severity_counts(const std::vector<Finding>& findings) {
  size_t n[3] = {0, 0, 0};
  for (const auto& f : findings) ++n[static_cast<int>(f.severity)];
  auto part = [](size_t k, const char* one, const char* many) { return std::to_string(k) + " " + (k == 1 ? one : many); };
  return part(n[2], "error", "errors") + ", " + part(n[1], "warning", "warnings") + ", " + std::to_string(n[0]) + " info";
}

std::string findings_section(const Report& r, size_t max_lines) {
  if (!r.findings || r.findings->empty()) return "";
  const auto& fs = *r.findings;
  std::ostringstream out;
  out << "\nfindings (" << severity_counts(fs) << "; details, fixes and links: rooflens lint REPORT.json):\n";
  for (size_t i = 0; i < fs.size() && i < max_lines; ++i)
    out << "  - [" << to_string(fs[i].severity) << "] " << (fs[i].run.empty() ? "" : fs[i].run + ": ") << fs[i].rule
        << ": " << fs[i].title << "\n";
  if (fs.size() > max_lines) out << "  … and " << fs.size() - max_lines << " more\n";
  return out.str();
}

const std::map<std::string, FindingsFormatter>& findings_formats() {
  static const std::map<std::string, FindingsFormatter> f = {{"table", &table}, {"md", &markdown}, {"json", &json_text}};
  return f;
}

}  // namespace rooflens
