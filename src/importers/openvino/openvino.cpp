// OpenVINO -> Measurement. The CSV's tables (one per infer request in a detailed report, one in an average report)
// are iterations: each layer's realTime per table. NOT_RUN / OPTIMIZED_OUT layers were fused into another and
// run no kernel: left out (they are named in their host's originalLayersNames). execType ends in the precision
// the layer ran in ("jit_avx512_I8" -> int8). The exec graph XML adds, per layer, the user's nodes it computes
// (originalLayersNames), its runtime precision and, without a CSV, its time (execTimeMcs, µs).
#include "importers/openvino/openvino.h"

#include <map>

#include <pugixml.hpp>

#include "core/errors.h"
#include "importers/support.h"

namespace rooflens::importers {
namespace {

constexpr const char* kCountersHeader = "layerName;execStatus;layerType;execType;realTime";

// "jit_avx512_I8" -> ("jit_avx512", "int8"); "undef" -> ("undef", "").
std::pair<std::string, std::string> split_exec_type(const std::string& exec) {
  size_t us = exec.rfind('_');
  if (us == std::string::npos) return {exec, ""};
  std::string dtype = onnx_dtype(exec.substr(us + 1));
  return dtype.empty() ? std::make_pair(exec, std::string()) : std::make_pair(exec.substr(0, us), dtype);
}

struct CounterRow {
  std::string name, status, type, exec_type;
  double real_ms = 0;
};

std::vector<std::vector<CounterRow>> parse_counters(const InputFile& f) {
  std::vector<std::vector<CounterRow>> tables;
  bool in_table = false;
  auto lines = lines_of(f.text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.rfind(kCountersHeader, 0) == 0) {
      tables.emplace_back();
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    Where w{f.path, "line " + std::to_string(i + 1)};
    auto c = split(line, ';');
    if (c.empty() || trim(c[0]).empty()) continue;
    if (trim(c[0]) == "Total") {
      in_table = false;
      continue;
    }
    if (c.size() < 5) fail(w, "expected layerName;execStatus;layerType;execType;realTime (ms);cpuTime (ms);");
    CounterRow r;
    r.name = c[0];
    r.status = trim(c[1]);
    r.type = trim(c[2]);
    r.exec_type = trim(c[3]);
    auto real = parse_nonneg(c[4]);
    if (!real) fail(w.at("realTime (ms)"), "'" + trim(c[4]).substr(0, 40) + "' is not a number >= 0");
    r.real_ms = *real;
    tables.back().push_back(std::move(r));
  }
  if (tables.empty()) throw UserError(f.path + ": no '" + std::string(kCountersHeader) + " (ms);...' header");
  return tables;
}

struct XmlLayer {
  std::string name, type, primitive, precision;
  std::vector<std::string> original;
  std::optional<double> time_ms;  // execTimeMcs / 1000; nullopt for "not_executed"
  int64_t order = 0;
};

std::vector<XmlLayer> parse_xml(const InputFile& f) {
  pugi::xml_document doc;
  pugi::xml_parse_result ok = doc.load_buffer(f.text.data(), f.text.size(), pugi::parse_default & ~pugi::parse_doctype);
  if (!ok) throw UserError(f.path + ": not valid XML (" + std::string(ok.description()) + " at byte " +
                           std::to_string(ok.offset) + ")");
  pugi::xml_node layers = doc.child("net").child("layers");
  if (!layers) throw UserError(f.path + ": no <net><layers> (not an OpenVINO executable graph)");
  std::vector<XmlLayer> out;
  for (pugi::xml_node l : layers.children("layer")) {
    XmlLayer x;
    x.name = l.attribute("name").as_string();
    pugi::xml_node data = l.child("data");
    Where w{f.path, "layer '" + x.name.substr(0, 80) + "'"};
    if (!data) fail(w, "has no <data> (an IR model, not the executable graph -exec_graph_path writes)");
    x.type = data.attribute("layerType").as_string(l.attribute("type").as_string());
    x.primitive = data.attribute("primitiveType").as_string();
    x.precision = onnx_dtype(data.attribute("runtimePrecision").as_string());
    std::string t = data.attribute("execTimeMcs").as_string();
    if (!t.empty() && t != "not_executed") {
      auto us = parse_nonneg(t);
      if (!us) fail(w.at("execTimeMcs"), "'" + t.substr(0, 40) + "' is not a number or not_executed");
      x.time_ms = *us / 1000.0;
    }
    auto order = parse_nonneg(data.attribute("execOrder").as_string());
    x.order = order && *order < 1e12 ? static_cast<int64_t>(*order) : static_cast<int64_t>(out.size());
    for (const auto& n : split(data.attribute("originalLayersNames").as_string(), ','))
      if (!trim(n).empty()) x.original.push_back(trim(n));
    out.push_back(std::move(x));
  }
  std::stable_sort(out.begin(), out.end(), [](const XmlLayer& a, const XmlLayer& b) { return a.order < b.order; });
  return out;
}

bool executed(const std::string& status) { return status == "EXECUTED"; }

class OpenVinoImporter : public Importer {
 public:
  std::string name() const override { return "openvino"; }
  std::vector<std::string> aliases() const override { return {"ov", "benchmark_app"}; }
  std::string description() const override {
    return "OpenVINO benchmark_app -report_type detailed_counters|average_counters CSV and -exec_graph_path XML";
  }
  int recognizes(const InputFile& f) const override {
    std::string_view head(f.text.data(), std::min<size_t>(f.text.size(), 1 << 16));
    if (contains(head, kCountersHeader)) return 10;
    if (first_char(f.text) == '<' && contains(head, "<net") && contains(head, "execTimeMcs")) return 10;
    return 0;
  }

  Imported read(const std::vector<InputFile>& files, const ImportOptions& options) const override {
    reject_options(name(), options, {});
    std::optional<std::vector<std::vector<CounterRow>>> csv;
    std::optional<std::vector<XmlLayer>> xml;
    Imported out;
    for (const auto& f : files) {
      if (first_char(f.text) == '<') {
        if (xml) throw UserError(f.path + ": a second executable graph (give one per import)");
        xml = parse_xml(f);
        out.read.push_back(f.path + ": OpenVINO executable graph, " + std::to_string(xml->size()) + " layers");
      } else {
        if (csv) throw UserError(f.path + ": a second per-layer report (give one per import)");
        csv = parse_counters(f);
        out.read.push_back(f.path + ": OpenVINO per-layer report, " + std::to_string(csv->size()) + " table(s) of " +
                           std::to_string(csv->front().size()) + " layers");
      }
    }
    std::map<std::string, const XmlLayer*> by_name;
    if (xml)
      for (const auto& x : *xml) by_name.emplace(x.name, &x);
    Measurement& m = out.measurement;
    int64_t not_run = 0;
    auto add = [&](KernelRecord k) {
      auto x = by_name.find(k.name);
      if (x != by_name.end()) {
        k.onnx_nodes = x->second->original;
        if (k.precision.empty()) k.precision = x->second->precision;
        if (k.implementation.empty()) k.implementation = x->second->primitive;
      }
      if (k.op == "Reorder") k.kind = LayerKind::layout;
      k.device = "CPU";
      k.device_class = Device::cpu;
      m.kernels.push_back(std::move(k));
    };
    if (csv) {
      // Rows by name across tables (a detailed report repeats every layer once per infer request).
      std::map<std::string, size_t> index;
      const size_t tables = csv->size();
      for (size_t t = 0; t < tables; ++t)
        for (const auto& r : (*csv)[t]) {
          if (!executed(r.status)) {
            if (t == 0) ++not_run;
            continue;
          }
          auto [it, fresh] = index.emplace(r.name, m.kernels.size());
          if (fresh) {
            KernelRecord k;
            k.name = r.name;
            k.op = r.type;
            auto [impl, dtype] = split_exec_type(r.exec_type);
            k.implementation = impl;
            k.precision = dtype;
            k.per_iteration_ms.assign(tables, 0.0);
            add(std::move(k));
          }
          m.kernels[it->second].per_iteration_ms[t] += r.real_ms;
        }
    } else {
      for (const auto& x : *xml) {
        if (!x.time_ms) {
          ++not_run;
          continue;
        }
        KernelRecord k;
        k.name = x.name;
        k.op = x.type;
        k.per_iteration_ms = {*x.time_ms};
        add(std::move(k));
      }
    }
    if (not_run > 0)
      m.warnings.push_back(std::to_string(not_run) + " layer(s) NOT_RUN: fused into other layers by the plugin");
    size_t iterations = csv ? csv->size() : 1;
    for (size_t i = 0; i < iterations; ++i) {
      double sum = 0;
      for (const auto& k : m.kernels) sum += i < k.per_iteration_ms.size() ? k.per_iteration_ms[i] : 0;
      m.profiled_runs_ms.push_back(sum);
    }
    m.warnings.push_back("per-layer counters only: no end-to-end samples (the run is the sum of its layers)");
    out.rules = &plain_mapping_rules();
    out.backend.name = "openvino";
    out.backend.runtime = "OpenVINO (benchmark_app per-layer counters)";
    return out;
  }
};

}  // namespace

const Importer& openvino_importer() {
  static const OpenVinoImporter importer;
  return importer;
}

}  // namespace rooflens::importers
