#pragma once
// `rooflens import`: the files another tool wrote about one run -> the format's importer (src/importers/) ->
// the neutral measurement record -> assemble_run (the same function every live backend's runs go through) -> a
// Report like `profile` makes (tool.command "import"), which every view, compare and lint read as any other.
// With the user's ONNX model, layers map to its nodes and take their costs from rooflens' own analysis; without
// it they keep the costs the files allow. Roofs: --roofs FILE, else the datasheet of --device, else the peaks the
// files state themselves, else the datasheet of the device the files name, else none. Other commands (e.g. a history database) can call run_import and store the Report.
#include <cstdint>
#include <string>
#include <vector>

#include "core/report.h"
#include "importers/importer.h"
#include "model/shapes.h"

namespace rooflens {

// What `rooflens import` is asked to read and against what: the driver's one options struct.
struct ImportSpec {
  std::string format = "auto";                 // an importer's name, or auto (from the files' content)
  std::vector<std::string> files;
  std::string model;                           // --model: the ONNX model the run ran ("" = none)
  std::string executed_graph;                  // --executed-graph: the graph the runtime ran (ORT's optimized model)
  std::string device;                          // --device: datasheet roofs by name
  std::string roofs;                           // --roofs FILE: ceilings for anything else
  ShapeOverrides shapes;                       // dims for the model's analysis (else the files' input shapes)
  importers::ImportOptions options;            // --option key=value, the format's own
  uint64_t max_file_bytes = uint64_t{1} << 30;  // a file larger than this is refused
};

struct ImportResult {
  Report report;
  std::string format;                // the importer that read the files
  std::vector<std::string> read;     // what it read from each file
  std::string roofs;                 // where the roofs came from ("" = none)
  std::string device;                // the device the files name ("" = none)
};

// Throws UserError (one line naming the file and field) or UsageError (bad flags).
ImportResult run_import(const ImportSpec& spec);

}  // namespace rooflens
