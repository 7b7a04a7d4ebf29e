#include "importers/driver/import.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/cost.h"
#include "analysis/model_summary.h"
#include "assembly/assemble.h"
#include "core/errors.h"
#include "hw/datasheets.h"
#include "hw/roof_cache.h"
#include "importers/registry/registry.h"
#include "memory/model_memory.h"
#include "model/onnx_graph_view.h"
#include "model/loader.h"
#include "core/build_info.h"

namespace rooflens {
namespace fs = std::filesystem;
namespace {

std::vector<importers::InputFile> read_files(const ImportSpec& r) {
  if (r.files.empty()) throw UsageError("import: give the files to read (import FORMAT FILES...)");
  std::vector<importers::InputFile> out;
  for (const auto& path : r.files) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) throw UserError(path + ": not a file");
    uint64_t size = fs::file_size(path, ec);
    if (ec) throw UserError(path + ": cannot read its size");
    if (size > r.max_file_bytes)
      throw UserError(path + ": " + std::to_string(size >> 20) + " MiB is more than a profile of one run can be (limit " +
                      std::to_string(r.max_file_bytes >> 20) + " MiB)");
    std::ifstream f(path, std::ios::binary);
    std::stringstream text;
    text << f.rdbuf();
    if (!f) throw UserError(path + ": cannot read it");
    out.push_back({path, text.str()});
  }
  return out;
}

std::string letters_and_digits(const std::string& s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The datasheet entry for a device as a tool names it ("NVIDIA A100-SXM4-80GB", "NVIDIA TITAN RTX"): the same
// letters and digits as an entry's id, name or alias, else the longest of those (4+ characters) it contains.
const hw::DatasheetDevice* match_datasheet_device(const std::string& device) {
  const std::string want = letters_and_digits(device);
  const hw::DatasheetDevice* best = nullptr;
  size_t best_len = 0;
  for (const auto& d : hw::datasheet_devices()) {
    std::vector<std::string> names{d.id, d.name};
    names.insert(names.end(), d.aliases.begin(), d.aliases.end());
    for (const auto& n : names) {
      std::string k = letters_and_digits(n);
      if (k == want) return &d;
      if (k.size() >= 4 && k.size() > best_len && want.find(k) != std::string::npos) best = &d, best_len = k.size();
    }
  }
  return best;
}

// Roofs: --roofs FILE wins, then --device, then the peaks the files state themselves, then the datasheet of the
// device the files name (when the table knows it).
std::optional<HardwareInfo> roofs_for(const ImportSpec& r, const importers::Imported& imported, std::string& from) {
  const std::string& file_device = imported.measurement.device_name;
  if (!r.roofs.empty()) {
    from = "--roofs " + r.roofs;
    return hw::load_roofs_file(r.roofs);
  }
  if (!r.device.empty()) {
    const hw::DatasheetDevice& d = hw::find_datasheet_device(r.device);
    from = "datasheet: " + d.name + " (--device " + r.device + ")";
    return hw::datasheet_hardware(d);
  }
  if (imported.hardware) {
    from = "profile: the peaks the files state" + (file_device.empty() ? std::string() : " for " + file_device);
    return imported.hardware;
  }
  if (!file_device.empty()) {
    if (const hw::DatasheetDevice* d = match_datasheet_device(file_device)) {
      from = "datasheet: " + d->name + " (the device the files name: " + file_device + ")";
      return hw::datasheet_hardware(*d);
    }
    from = "none: no datasheet for '" + file_device + "' (give --device NAME or --roofs FILE)";
  }
  return std::nullopt;
}

// The dims the model is analysed at: the user's flags, else the input shapes the files name.
ShapeOverrides shapes_for(const ImportSpec& r, const Measurement& m, int64_t batch) {
  ShapeOverrides s = r.shapes;
  if (s.shapes.empty() && s.dims.empty() && !s.batch) {
    for (const auto& [name, dims] : m.input_shapes) {
      bool fixed = !dims.empty();
      for (int64_t d : dims) fixed = fixed && d > 0;
      if (fixed) s.shapes[name] = dims;
    }
    if (s.shapes.empty() && batch > 0) s.batch = batch;
  }
  return s;
}

// Drops --shape entries for inputs the model does not have (the files may name TensorRT's own bindings).
ShapeOverrides known_inputs(ShapeOverrides s, const std::string& model_path, const ImportSpec& r) {
  if (!r.shapes.shapes.empty()) return s;
  Model probe = load_model(model_path, {});
  std::map<std::string, std::vector<int64_t>> kept;
  for (const auto& [name, dims] : s.shapes)
    for (const auto& in : probe.graphs[0].inputs)
      if (in == name) kept[name] = dims;
  s.shapes = kept;
  return s;
}

// A serving benchmark's result: the inference server's run as the report's `serving`; no layers, so nothing to map to a model
// or to hold to roofs.
ImportResult serving_import(const ImportSpec& r, importers::Imported& imported, ImportResult out) {
  for (const auto& [flag, given] : {std::pair{"--model", !r.model.empty()}, {"--executed-graph", !r.executed_graph.empty()},
                                    {"--roofs", !r.roofs.empty()}, {"--device", !r.device.empty()}})
    if (given)
      throw UsageError(std::string("import ") + out.format + ": " + flag + " is for layer profiles; a serving result " +
                       "has no layers to map or to place on roofs (leave " + flag + " out)");
  Report& rep = out.report;
  rep.model.name = imported.model_path.empty() ? fs::path(r.files.front()).stem().string() : imported.model_path;
  rep.serving = std::move(imported.serving);
  out.roofs = "none: a serving result has no layers";
  return out;
}

}  // namespace

ImportResult run_import(const ImportSpec& r) {
  std::vector<importers::InputFile> files = read_files(r);
  const importers::Importer& importer =
      r.format == "auto" ? importers::detect_importer(files) : importers::find_importer(r.format);
  importers::Imported imported = importer.read(files, r.options);
  Measurement& m = imported.measurement;

  ImportResult out;
  out.format = importer.name();
  out.read = imported.read;
  out.device = m.device_name;
  Report& rep = out.report;
  rep.tool = tool_info("import");
  imported.backend.label = imported.backend.name;
  imported.backend.version = imported.backend.version;
  imported.backend.options["format"] = importer.name();
  rep.backends.push_back(imported.backend);

  if (imported.serving) return serving_import(r, imported, std::move(out));
  std::optional<HardwareInfo> hw = roofs_for(r, imported, out.roofs);
  if (hw) rep.hardware = *hw;

  RunKey key;
  key.batch = imported.batch;
  key.threads = m.threads;
  AssemblyContext ctx;
  ctx.hw = hw ? &*hw : nullptr;
  ctx.rules = imported.rules;
  std::optional<Model> model;
  Analysis analysis;
  GraphView view;
  if (!r.model.empty()) {
    model = load_model(r.model, known_inputs(shapes_for(r, m, imported.batch), r.model, r));
    analysis = analyze_model(*model, CostRegistry::builtin());
    view = graph_view(*model);
    rep.model = summarize_model(*model);
    rep.model.analysis = analysis;
    rep.model.memory = predict_model_memory(*model, analysis);
    ctx.model = &view;
    ctx.analysis = &analysis;
    key.dims = model->input_symbols;
    if (key.batch == 0 && !model->graphs[0].inputs.empty())
      if (const TensorInfo* t = model->graphs[0].find(model->graphs[0].inputs[0]); t && !t->dims.empty())
        key.batch = t->dims[0].value;
    if (!r.executed_graph.empty()) m.executed_graph = read_graph_view(r.executed_graph);
    if (!analysis.unknown_ops.empty()) {
      std::string ops;
      for (const auto& u : analysis.unknown_ops) ops += (ops.empty() ? "" : ", ") + u;
      rep.warnings.push_back("cost unknown for " + ops + ": layers containing them count their FLOPs as 0");
    }
  } else {
    if (!r.executed_graph.empty()) throw UsageError("import: --executed-graph needs --model (the graph it maps to)");
    // No model: executed graphs a format built from its files (tensor names) have nothing to map to.
    m.executed_graph.reset();
    std::string named = imported.model_path;
    rep.model.path = named;
    rep.model.name = named.empty() ? fs::path(r.files.front()).stem().string() : fs::path(named).stem().string();
    rep.warnings.push_back("no --model: layers keep the costs the files give (MACs and bytes where they allow) and "
                           "map to no ONNX node");
  }
  rep.runs.push_back(assemble_run(key, m, ctx));
  return out;
}

}  // namespace rooflens
