#pragma once
// Small text helpers shared by the readers of a profile report (`top`, exports): loading a report that must
// hold runs, naming a run's configuration, shapes, exact numbers and Markdown-safe text.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/report.h"
#include "core/units.h"  // shape_text

namespace rooflens {

// Reads REPORT.json; throws UserError (one line, naming the file) when it cannot be read, is not a rooflens
// report, or holds no profile runs (an `analyze` report, or a profile where every configuration failed).
Report load_profile_report(const std::string& path);

// "onnxruntime-node 1.30.0 on node 20.20.2", or every backend's runtime joined by " + " ("" without backends).
std::string runtimes_text(const Report& r);
// "measured (quick) 2026-11-23T23:24:39Z on Intel(R) Xeon(R) ...": where the roofs came from; parts the source did
// not record (a datasheet has no measurement time) are left out.
std::string roofs_text(const HardwareInfo& h);
// The roofs' own warnings (implausible ceilings, see docs/roofs.md), each prefixed "roofs: ": every view that
// lists a report's warnings lists these first.
std::vector<std::string> roof_warnings(const Report& r);
// A backend's options as applied, "key=value key=value" ("" for the runtime's defaults).
std::string options_text(const BackendInfo& b);

std::string shapes_text(const std::vector<std::vector<int64_t>>& shapes, const std::string& sep = ", ");
std::string join(const std::vector<std::string>& items, const std::string& sep);

// Shortest text that reads back to the same double ("0.25", "1e+20"); whole numbers below 2^53 as integers.
std::string exact(double v);
std::string percent(double ratio, int decimals = 1);  // 0.1234 -> "12.3%"

// A Markdown code span holding s literally (any backticks, HTML or pipes in model-supplied names stay text;
// newlines become spaces). Table cells still need TextTable::markdown's pipe escaping, which GFM honours.
std::string md_code(const std::string& s);

}  // namespace rooflens
