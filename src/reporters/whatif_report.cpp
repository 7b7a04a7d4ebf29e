#include "reporters/whatif_report.h"

#include <algorithm>
#include <sstream>

#include "core/json_fields.h"
#include "core/text_table.h"
#include "core/units.h"
#include "reporters/report_text.h"

namespace rooflens {

namespace {

const ProfileRun* measured_run(const Report& r, const std::string& label) {
  for (const auto& run : r.runs)
    if (run.label() == label) return &run;
  return nullptr;
}

std::string ratio_text(double measured, double projected) {
  if (measured <= 0 || projected <= 0) return "-";
  double x = measured / projected;
  return x >= 1 ? fixed(x, 2) + "x faster" : fixed(1 / x, 2) + "x slower";
}

// Layer indices, most measured time first, cut to `top`.
std::vector<size_t> heaviest(const ProfileRun& run, size_t top) {
  std::vector<size_t> idx(run.layers.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&run](size_t a, size_t b) { return run.layers[a].time_ms > run.layers[b].time_ms; });
  if (top > 0 && idx.size() > top) idx.resize(top);
  return idx;
}

TextTable whatif_layer_table(const ProfileRun& run, const RunProjection& p, size_t top) {
  TextTable t;
  t.columns = {{"#", true}, {"layer", false, 40}, {"op", false, 16}, {"bound"}, {"eff", true}, {"ms", true},
               {"proj ms", true}, {"speed-up", true}, {"bound'"}, {"roof'", false, 26}, {"note", false, 60}};
  size_t k = 0;
  for (size_t i : heaviest(run, top)) {
    const Layer& l = run.layers[i];
    const LayerProjection& x = p.layers[i];
    t.rows.push_back({std::to_string(++k), l.name, l.op, l.bound.empty() ? "-" : l.bound,
                      l.bound.empty() ? "-" : fixed(l.efficiency * 100, 1) + "%", fixed(l.time_ms, 3),
                      fixed(x.time_ms, 3), x.time_ms > 0 ? fixed(l.time_ms / x.time_ms, 2) + "x" : "-",
                      x.bound.empty() ? "-" : x.bound + (x.bound_changed ? " *" : ""), x.roof.empty() ? "-" : x.roof,
                      x.note});
  }
  return t;
}

std::string changed_bounds(const ProfileRun& run, const RunProjection& p) {
  std::string out;
  size_t n = 0;
  for (size_t i = 0; i < p.layers.size(); ++i) {
    if (!p.layers[i].bound_changed) continue;
    if (++n <= 8) out += "  " + run.layers[i].name + ": " + run.layers[i].bound + " -> " + p.layers[i].bound + "\n";
  }
  if (n > 8) out += "  … and " + std::to_string(n - 8) + " more\n";
  return "layers whose bound changes: " + std::to_string(n) + (n ? ":\n" + out : "\n");
}

// "memory 145 MB predicted -> 60 MB projected (weights 25 MB, activations 7 MB, baseline 28 MB)"
std::string memory_line(const RunProjection& rp) {
  if (!rp.memory) return "";
  const MemoryProjection& m = *rp.memory;
  auto mb = [](uint64_t b) { return si_bytes(static_cast<double>(b)); };
  return "memory " + mb(m.measured_predicted_bytes) + " predicted -> " + mb(m.total_bytes) + " projected (weights " +
         mb(m.weights_bytes) + ", activations " + mb(m.activations_bytes) + ", output copies " +
         mb(m.output_copies_bytes) + ", runtime baseline and node structures " + mb(m.baseline_bytes) + ")\n";
}

std::string whatif_table(const WhatIfView& v) {
  const Report& r = *v.report;
  const Projection& p = *r.whatif;
  std::ostringstream out;
  out << "whatif: " << r.model.name << " -> " << p.target << "   (projections, not measurements)\n\nassumptions:\n";
  for (const auto& a : p.assumptions) out << "  - " << a << "\n";
  for (const auto& rp : p.runs) {
    const ProfileRun* run = measured_run(r, rp.run);
    if (!run) continue;
    out << "\n" << rp.run << ": e2e " << fixed(rp.measured_ms, 3) << " ms measured -> " << fixed(rp.projected_ms, 3)
        << " ms projected (" << ratio_text(rp.measured_ms, rp.projected_ms) << "); layers " << fixed(rp.layers_measured_ms, 3)
        << " -> " << fixed(rp.layers_projected_ms, 3) << " ms, between kernels " << fixed(rp.gap_ms, 3) << " ms kept\n"
        << memory_line(rp) << whatif_layer_table(*run, rp, v.top).render() << changed_bounds(*run, rp);
  }
  return out.str();
}

std::string whatif_markdown(const WhatIfView& v) {
  const Report& r = *v.report;
  const Projection& p = *r.whatif;
  std::ostringstream out;
  out << "### rooflens whatif: " << md_code(r.model.name) << " → " << p.target << "\n\n*Projections, not measurements.*\n\n";
  for (const auto& a : p.assumptions) out << "- " << a << "\n";
  for (const auto& rp : p.runs) {
    const ProfileRun* run = measured_run(r, rp.run);
    if (!run) continue;
    out << "\n**" << rp.run << "**: " << fixed(rp.measured_ms, 3) << " ms measured → **" << fixed(rp.projected_ms, 3)
        << " ms** projected (" << ratio_text(rp.measured_ms, rp.projected_ms) << ")\n\n" << memory_line(rp) << "\n"
        << whatif_layer_table(*run, rp, v.top).markdown();
  }
  return out.str();
}

std::string whatif_json(const WhatIfView& v) {
  json j = *v.report->whatif;
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

const std::map<std::string, WhatIfFormatter>& whatif_formats() {
  static const std::map<std::string, WhatIfFormatter> f = {
      {"table", &whatif_table}, {"md", &whatif_markdown}, {"json", &whatif_json}};
  return f;
}

}  // namespace rooflens
