#pragma once
// `rooflens export`: a profile report in other tools' formats. Each exporter is one function of the Report in its
// own file; exporters() is the registry the CLI offers as --to.
//   csv    one table: layers (one row per layer per run, run configuration columns first) or, with --what e2e,
//          the end-to-end statistics (one row per run, plus one per failed configuration)
//   md     a Markdown summary for a pull-request comment: model, backend, e2e table per run, top layers
//   trace  Chrome / Perfetto trace-event JSON of the profiled iteration: one track (tid) per run
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/report.h"

namespace rooflens {

struct ExportOptions {
  std::string what = "layers";   // csv: a key of csv_tables()
  size_t top_layers = 10;        // md: layers per run (0 = all)
};

using Exporter = std::function<std::string(const Report&, const ExportOptions&)>;
const std::map<std::string, Exporter>& exporters();                    // export_registry.cpp

std::string export_csv(const Report& r, const ExportOptions& o);       // export_csv.cpp
std::vector<std::string> csv_tables();                                 // layers, e2e
std::string export_markdown(const Report& r, const ExportOptions& o);  // export_markdown.cpp
std::string export_trace(const Report& r, const ExportOptions& o);     // export_trace.cpp

}  // namespace rooflens
