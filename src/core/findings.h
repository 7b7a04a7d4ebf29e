#pragma once
// Findings: what `rooflens lint` (src/lint/) concludes from a report, kept in the report itself so every view
// (terminal summary, HTML, lint --format) shows the same list. Produced by profile (and by importers), never
// by views. JSON form in docs/report-schema.md ("findings").
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rooflens {

enum class Severity { info, warning, error };  // ordered: a --fail-on threshold compares them
NLOHMANN_JSON_SERIALIZE_ENUM(Severity, {{Severity::info, "info"}, {Severity::warning, "warning"},
                                        {Severity::error, "error"}})

struct Evidence {                 // one number behind a finding
  std::string name;               // "time share", "Q/DQ layers"
  double value = 0;
  std::string unit;               // "ratio" (0.12 = 12%), "ms", "count", "threads", "bytes", "FLOP/B"; "" a plain number
};

struct Finding {
  std::string rule;               // rule id, e.g. "unfused-qdq" (docs/lint.md lists them)
  Severity severity = Severity::info;
  std::string run;                // the run's label (RunKey::label(), as runs[].label); "" = about the whole report
  std::string title;              // one line: what was found, with its main number
  std::vector<std::string> layers;      // layer names involved (runs[].layers[].name), most time first
  std::vector<std::string> onnx_nodes;  // the user's ONNX nodes those layers compute
  std::vector<Evidence> evidence;
  std::string mitigation;         // what to do about it
  std::string read_more;          // a URL
};

const char* to_string(Severity s);
// "info" | "warning" | "error" -> Severity; throws UsageError naming `flag` otherwise.
Severity parse_severity(const std::string& text, const std::string& flag);

}  // namespace rooflens
