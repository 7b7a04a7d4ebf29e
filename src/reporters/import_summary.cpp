#include "reporters/import_summary.h"

#include <algorithm>
#include <map>

#include "core/text_table.h"
#include "core/units.h"

namespace rooflens {
namespace {

std::string share_pct(double share) { return fixed(share * 100, 1) + "%"; }

// A layer the source timed at 0 ms (one the runtime elided, or one its profile has no row for) is still a layer
// of the run: counted, and said to be at 0 ms.
void layer_totals(const ProfileRun& run, std::string& out) {
  double median = 0, mean = 0;
  bool means = false;
  int64_t zero = 0;
  for (const auto& l : run.layers) {
    median += l.time_ms;
    if (l.mean_ms) mean += *l.mean_ms, means = true;
    if (l.time_ms == 0) ++zero;
  }
  out += "layers   " + std::to_string(run.layers.size()) + ", total " + fixed(median, 3) + " ms (Σ layer time)";
  if (means) out += ", Σ mean " + fixed(mean, 3) + " ms";
  if (zero > 0) out += "; " + std::to_string(zero) + " at 0 ms";
  out += "\n";
  if (run.weights_bytes || run.activations_bytes)
    out += "memory   weights " + si_bytes(static_cast<double>(run.weights_bytes.value_or(0))) + ", activations " +
           si_bytes(static_cast<double>(run.activations_bytes.value_or(0))) + " (Σ layer inputs and outputs)\n";
}

void phases(const ProfileRun& run, std::string& out) {
  if (run.phases.empty()) return;
  TextTable t;
  t.columns = {{"phase"}, {"median ms", true}, {"mean ms", true}, {"p99 ms", true}, {"n", true}};
  for (const auto& p : run.phases)
    t.rows.push_back({p.name, fixed(p.ms.median, 4), fixed(p.ms.mean, 4), fixed(p.ms.p99, 4), std::to_string(p.ms.n)});
  out += "\ne2e phases (per inference, as the tool timed them):\n" + t.render();
}

void providers(const ProfileRun& run, std::string& out) {
  std::vector<LayerDeviceShare> shares = layer_device_shares(run);
  if (shares.size() < 2 && std::none_of(run.layers.begin(), run.layers.end(), [](const Layer& l) { return l.fallback; }))
    return;
  TextTable t;
  t.columns = {{"provider"}, {"layers", true}, {"layer share", true}, {"ms", true}, {"time share", true}};
  // A profile-only TensorRT file names no device for layers it cannot place (e.g. DLA regions).
  for (const auto& s : shares)
    t.rows.push_back({s.provider.empty() ? "(not named)" : s.provider, std::to_string(s.layers),
                      share_pct(s.layer_share), fixed(s.time_ms, 3), share_pct(s.time_share)});
  out += "\nexecution providers (share of layers and of layer time):\n" + t.render();
  std::string fallbacks;
  int64_t n = 0;
  for (const auto& l : run.layers)
    if (l.fallback) {
      if (++n <= 10) fallbacks += "  " + l.name + " (" + l.op + ", " + fixed(l.time_ms, 3) + " ms)\n";
    }
  if (n > 0)
    out += "CPU fallback: " + std::to_string(n) + " layer(s) ran on the CPU although the inference session ran on an "
           "accelerator:\n" + fallbacks + (n > 10 ? "  … (" + std::to_string(n - 10) + " more)\n" : "");
}

struct InsertedLayers {
  int64_t n = 0, at_zero = 0;
  double ms = 0;
};

void inserted_and_precisions(const ProfileRun& run, std::string& out) {
  std::map<std::string, InsertedLayers> inserted;
  std::map<std::string, std::pair<int64_t, double>> precision;
  for (const auto& l : run.layers) {
    if (!l.inserted_for.empty()) {
      InsertedLayers& x = inserted[l.inserted_for];
      ++x.n, x.ms += l.time_ms;
      if (l.time_ms == 0) ++x.at_zero;
    }
    auto& [n, ms] = precision[l.precision.empty() ? "?" : l.precision];
    ++n, ms += l.time_ms;
  }
  for (const auto& [why, x] : inserted)
    out += "inserted " + std::to_string(x.n) + " " + why + " layer(s) by the runtime, " + fixed(x.ms, 3) + " ms" +
           (x.at_zero > 0 ? " (" + std::to_string(x.at_zero) + " of them at 0 ms)" : "") + "\n";
  if (precision.size() > 1 || !precision.count("?")) {
    out += "precision";
    for (const auto& [p, v] : precision) out += "  " + p + ": " + std::to_string(v.first) + " layers " + fixed(v.second, 3) + " ms";
    out += "\n";
  }
}

// A hierarchical roofline's levels (sources that count bytes per level): per level, how many layers have a point,
// the bytes they moved there, the layer nearest that level's roof and the points above it (not drawn).
void memory_levels(const ProfileRun& run, std::string& out) {
  struct Level {
    int64_t layers = 0, above = 0;
    double bytes = 0;
    const Layer* nearest = nullptr;
    const LevelPoint* point = nullptr;
  };
  std::vector<std::pair<std::string, Level>> levels;  // in the order the source gives them (DRAM, L2, L1)
  for (const auto& l : run.layers)
    for (const auto& p : l.levels) {
      auto it = std::find_if(levels.begin(), levels.end(), [&](const auto& e) { return e.first == p.level; });
      Level& v = it != levels.end() ? it->second : levels.emplace_back(p.level, Level{}).second;
      ++v.layers, v.bytes += static_cast<double>(p.bytes);
      if (!p.attribution_error.empty()) ++v.above;
      else if (!p.bound.empty() && (!v.point || p.efficiency > v.point->efficiency)) v.nearest = &l, v.point = &p;
    }
  if (levels.empty()) return;
  out += "memory levels (bytes counted per level; each point held to its level's roof):\n";
  for (const auto& [name, v] : levels) {
    out += "  " + name + ": " + std::to_string(v.layers) + " layer(s), " + si_bytes(v.bytes);
    if (v.point)
      out += "; nearest its roof: " + v.nearest->name.substr(0, 60) + " " + fixed(v.point->efficiency * 100, 1) + "% of " +
             v.point->roof + " (" + v.point->bound + " bound)";
    if (v.above) out += "; " + std::to_string(v.above) + " above it (attribution errors, not drawn)";
    out += "\n";
  }
}

}  // namespace

std::vector<LayerDeviceShare> layer_device_shares(const ProfileRun& run) {
  std::map<std::string, LayerDeviceShare> by;
  double total = 0;
  for (const auto& l : run.layers) {
    auto& s = by[l.provider];
    s.provider = l.provider;
    ++s.layers;
    s.time_ms += l.time_ms;
    total += l.time_ms;
  }
  std::vector<LayerDeviceShare> out;
  for (auto& [k, s] : by) {
    s.layer_share = run.layers.empty() ? 0 : static_cast<double>(s.layers) / static_cast<double>(run.layers.size());
    s.time_share = total > 0 ? s.time_ms / total : 0;
    out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const LayerDeviceShare& a, const LayerDeviceShare& b) { return a.time_ms > b.time_ms; });
  return out;
}

std::string import_summary(const Report& r) {
  std::string out;
  for (const auto& run : r.runs) {
    out += "\nimported run " + run.label() + ":\n";
    layer_totals(run, out);
    inserted_and_precisions(run, out);
    memory_levels(run, out);
    phases(run, out);
    providers(run, out);
    if (run.unmapped_kernels > 0 && !r.model.analysis.nodes.empty()) {
      std::string names;
      int64_t n = 0;
      for (const auto& l : run.layers)
        if (l.onnx_nodes.empty() && ++n <= 8) names += "  " + l.name.substr(0, 160) + "\n";
      out += "unmapped: " + std::to_string(run.unmapped_kernels) + " layer(s) name no ONNX node of the model:\n" + names +
             (n > 8 ? "  … (" + std::to_string(n - 8) + " more)\n" : "");
    }
  }
  return out;
}

}  // namespace rooflens
