#pragma once
// Nsight Compute's CSV, both layouts, as one table of metrics per profiled kernel: the details page (`--csv`, long:
// a row per kernel x section x metric, "Metric Name", "Metric Unit", "Metric Value") and the raw page (`--page raw
// --csv`, wide: a column per metric, the units in the second row). Values are kept as the file writes them and
// read into SI units only when a metric is used, so an error names the line and the field of that value.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "importers/importer.h"

namespace rooflens::importers::ncu {

// One metric of one kernel as written: its value and unit strings, and where it stands (for messages).
struct Cell {
  std::string text, unit;
  size_t line = 0;     // 1-based line of the file
  std::string column;  // "Metric Value" (details page) or the metric's column name (raw page)
};

struct Kernel {
  std::string id, name;          // "ID", "Kernel Name"
  std::string device, cc;        // "Device" (an index), "CC" ("7.5")
  std::string block, grid;       // "(256, 1, 1)"
  size_t line = 0;               // its first row
  std::map<std::string, Cell> metrics;  // by metric name; details-page labels of known metrics under their names
  bool decimal_comma = false;    // the file's convention (a locale's): ',' the decimal mark, '.' the grouping
};

struct Table {
  std::string layout;            // "details" | "raw"
  std::vector<Kernel> kernels;   // in the file's order (first row of each ID)
  size_t preamble_lines = 0;     // lines before the header (`==PROF==` and the application's own output)
};

// Throws UserError "<path>: line N: ..." for a file that is not an Nsight Compute CSV or is damaged.
Table read_csv(const InputFile& f);

// A value as the file's convention writes it -> the number: "4,963,609,951.19" and "4.0e-05" with a decimal point,
// "4.963.609.951,19" and "0,5" with a decimal comma; groups between separators must have three digits. nullopt for
// anything else ("n/a", "", "(256, 1, 1)", "-3", "1,2,3").
std::optional<double> parse_number(std::string_view s, bool decimal_comma);

// Which mark a value shows to be its decimal one: +1 a point ("1.59", "1,590.42"), -1 a comma ("0,12", "1.530,2"),
// 0 when it cannot tell ("1,024", "12", "n/a"). A file is read by the majority of its values (read_csv).
int decimal_evidence(std::string_view s);

// A unit as Nsight Compute writes it, as a factor to SI base units and its base words: "Kbyte" -> {1e3, "byte", ""},
// "cycle/usecond" -> {1e6, "cycle", "second"}, "Ghz" -> {1e9, "cycle", "second"}, "" -> {1, "", ""}. Prefixes are
// decimal (Nsight Compute writes 32,768 bytes as 32.77 Kbyte). nullopt when a part is not understood.
struct Unit {
  double scale = 1;
  std::string num, den;
};
std::optional<Unit> parse_unit(std::string_view unit);

}  // namespace rooflens::importers::ncu
