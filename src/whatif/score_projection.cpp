#include "whatif/score_projection.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "analysis/roofline.h"
#include "core/errors.h"
#include "hw/datasheets.h"
#include "stats/order.h"
#include "whatif/score_projection_efficiency.h"

namespace rooflens {
namespace {

bool matrix_op(const std::string& op) {
  static const std::set<std::string> ops{"Conv", "ConvTranspose", "MatMul", "Gemm", "QLinearConv", "QLinearMatMul",
                                         "ConvInteger", "MatMulInteger", "MatMulNBits", "DynamicQuantizeMatMul"};
  return ops.count(op) > 0;
}

// How an aggregate's efficiency came about: "learned" (every member's), "assumed" (none), or "partly learned".
std::string efficiency_origin(int64_t learned, int64_t members) {
  if (learned == 0) return "assumed (the reference's)";
  if (learned == members) return "learned";
  return fmt::format("learned for {} of {} figures, the rest assumed", learned, members);
}

std::string explain(const ScoreAggregate& a, const std::string& origin) {
  if (a.score <= 0) return a.name + ": nothing projected";
  return fmt::format("{} {:.2f}× the reference (PROJECTED): roofs {:.2f}×, efficiency {:.2f}× {}{}", a.name,
                     a.score / 1000, a.roof_ratio, a.efficiency, origin, a.incomplete ? "; incomplete" : "");
}

// Projected figures note their efficiency's origin at the end of their config: "...; efficiency 1.31× learned from ...".
constexpr const char* kLearned = "; efficiency learned";

bool learned(const ScoreFigure& f) { return f.config.find(kLearned) != std::string::npos; }

// One node alone on the roofline: its time (s; -1 when the roofs give no ceiling for its work) and placement.
struct NodeTime {
  double seconds = 0;
  RoofPlacement placement;
};
NodeTime node_time(const ProjectedWork& n, const HardwareInfo& roofs, int64_t threads) {
  NodeTime t;
  if (n.flops <= 0 && n.bytes <= 0) return t;
  t.placement = place_on_roofline(roofs, threads, static_cast<uint64_t>(n.flops), static_cast<uint64_t>(n.bytes), 1.0,
                                  n.dtype);
  t.seconds = t.placement.attainable > 0 ? (n.flops > 0 ? n.flops : n.bytes) / (t.placement.attainable * 1e9) : -1;
  return t;
}

double units_of(const ProjectionFigure& f) { return f.units_per_pass > 0 ? f.units_per_pass : 1; }

ScoreAggregate aggregate(const std::string& name, const std::vector<const ScoreFigure*>& members, size_t valid_count) {
  ScoreAggregate a;
  a.name = name;
  std::vector<double> s, rr, ef;
  int64_t from_evidence = 0;
  for (const ScoreFigure* f : members) {
    if (f->score <= 0) continue;
    s.push_back(f->score);
    rr.push_back(f->roof_ratio);
    ef.push_back(f->efficiency);
    from_evidence += learned(*f);
  }
  a.members = static_cast<int64_t>(valid_count);
  a.valid_members = static_cast<int64_t>(s.size());
  a.incomplete = a.valid_members < a.members;
  a.score = stats::geometric_mean(s);
  a.roof_ratio = stats::geometric_mean(rr);
  a.efficiency = stats::geometric_mean(ef);
  a.explanation = explain(a, efficiency_origin(from_evidence, a.valid_members));
  return a;
}

}  // namespace

std::vector<ProjectedWork> projected_work(const Analysis& pass, const std::string& precision) {
  std::vector<ProjectedWork> out;
  for (const auto& n : pass.nodes) {
    if (n.execution != NodeExecution::Run) continue;
    ProjectedWork w;
    w.flops = static_cast<double>(n.flops);
    w.bytes = static_cast<double>(n.bytes_read) + static_cast<double>(n.bytes_written);
    if (precision == "int8" && matrix_op(n.op)) w.dtype = "int8";
    else if (!n.input_dtypes.empty() && !roof_dtype(n.input_dtypes[0]).empty()) w.dtype = roof_dtype(n.input_dtypes[0]);
    if (w.flops > 0 || w.bytes > 0) out.push_back(std::move(w));
  }
  return out;
}

double roofline_time_ms(const std::vector<ProjectedWork>& nodes, const HardwareInfo& roofs, int64_t threads) {
  double seconds = 0;
  for (const auto& n : nodes) {
    const NodeTime t = node_time(n, roofs, threads);
    if (t.seconds < 0) return -1;
    seconds += t.seconds;
  }
  return seconds * 1000;
}

RoofBound roofline_bound(const std::vector<ProjectedWork>& nodes, double units_per_pass, const HardwareInfo& roofs,
                         int64_t threads) {
  RoofBound b;
  const double units = units_per_pass > 0 ? units_per_pass : 1;
  double compute = 0, memory = 0;
  bool complete = true;
  for (const auto& n : nodes) {
    b.flops += n.flops / units;
    b.bytes += n.bytes / units;
    const NodeTime t = node_time(n, roofs, threads);
    if (t.seconds < 0) complete = false;
    const RoofPlacement& p = t.placement;
    (p.bound == "compute" ? compute : memory) += std::max(t.seconds, 0.0);
    if (p.bound == "compute" && b.compute_roof.empty()) {
      b.compute_roof = p.roof;
      b.compute_gflops = p.attainable;
    }
    if (p.bound == "memory" && b.memory_roof.empty()) {
      b.memory_roof = p.roof;
      b.memory_gbps = p.attainable;
    }
  }
  if (!complete || compute + memory <= 0) return b;  // a figure is decomposed against all its work or not at all
  b.bound = compute >= memory ? "compute" : "memory";
  b.time_ms = (compute + memory) * 1000 / units;
  return b;
}

ScoreResult project_score(const std::vector<ProjectionWorkload>& workloads, const ProjectionSetup& setup,
                          const ProjectionTarget& target, const EfficiencyTable* efficiency) {
  ScoreResult r;
  r.suite = setup.suite;
  r.quick = setup.quick;
  r.kind = "projected";
  r.device = target.device;
  r.created_at = setup.created_at;
  r.machine = setup.machine;
  r.machine.roofs = target.roofs_source;
  r.repetitions = 1;
  r.ci_method = "none: a projection has no repetitions, so no interval";
  r.warnings.push_back("PROJECTED, not measured: each model node alone on the " + target.roofs_source +
                       " roofs of " + target.device +
                       ", times scaled by the reference's own (time / per-node roofline time); efficiency " +
                       (efficiency ? efficiency->summary() : std::string("assumed equal to the reference's")));
  r.warnings.insert(r.warnings.end(), setup.warnings.begin(), setup.warnings.end());
  size_t projected = 0;
  for (const auto& w : workloads) {
    ScoreWorkload out;
    out.id = w.id;
    out.model = w.model;
    out.precision = w.precision;
    out.shape = w.shape;
    out.status = WorkloadStatus::valid;
    out.tolerance = "not checked: projected";
    if (!w.not_projected.empty()) {
      out.status = w.unsupported ? WorkloadStatus::unsupported : WorkloadStatus::failed;
      out.reason = "not projected: " + w.not_projected;
      r.warnings.push_back(w.id + ": " + out.reason);
    }
    for (const auto& f : w.figures) {
      ScoreFigure x;
      x.metric = f.metric;
      x.category = f.category;
      x.unit = f.unit;
      x.reference_time_ms = f.reference_time_ms;
      const double units = units_of(f);
      const double t_ref = roofline_time_ms(f.nodes, setup.reference_roofs, f.threads) / units;
      const double t_target = roofline_time_ms(f.nodes, target.roofs, f.threads) / units;
      if (!w.not_projected.empty()) {
        out.figures.push_back(std::move(x));
        continue;
      }
      if (!(t_ref > 0) || !(t_target > 0) || !(f.reference_time_ms > 0)) {
        out.status = WorkloadStatus::failed;
        out.reason = "figure " + f.metric + " not projected: " +
                     (f.reference_time_ms > 0 ? std::string("the roofs give no ceiling for some of its work")
                                              : std::string("the suite has no reference time for it"));
        r.warnings.push_back(w.id + ": " + out.reason);
        out.figures.push_back(std::move(x));
        continue;
      }
      const LearnedEfficiency eff =
          efficiency ? efficiency->of(w.id, f.metric, f.category) : LearnedEfficiency{};
      x.roof_ratio = t_ref / t_target;
      x.efficiency = eff.factor;
      x.time_ms = f.reference_time_ms / (x.roof_ratio * x.efficiency);
      x.value = x.unit == "ms" ? x.time_ms : 1000 / x.time_ms;
      x.repetitions = {x.value};
      x.config = fmt::format("projected: reference {:.4g} ms × roofline {:.4g} ms (target) / {:.4g} ms (reference)"
                             "{} {:.2f}× {}",
                             f.reference_time_ms, t_target, t_ref, eff.learned ? kLearned : "; efficiency",
                             eff.factor, eff.learned ? "from " + eff.source : eff.source);
      x.roof = roofline_bound(f.nodes, units, target.roofs, f.threads);
      x.reference_roof_time_ms = t_ref;
      x.score = 1000 * x.roof_ratio * x.efficiency;
      out.figures.push_back(std::move(x));
      ++projected;
    }
    if (out.status != WorkloadStatus::valid)
      for (auto& x : out.figures) x.score = 0;  // no score from a workload only partly projected
    r.workloads.push_back(std::move(out));
  }
  if (projected == 0)
    throw UserError("nothing to project onto " + target.device + ": no figure has both a reference time and roofs "
                    "for its work");
  for (const auto& name : setup.categories) {
    std::vector<const ScoreFigure*> members;
    for (const auto& w : r.workloads)
      for (const auto& f : w.figures)
        if (f.category == name && w.status != WorkloadStatus::unsupported) members.push_back(&f);
    r.categories.push_back(aggregate(name, members, members.size()));
  }
  std::vector<double> s, rr, ef;
  for (const auto& c : r.categories)
    if (c.score > 0) {
      s.push_back(c.score);
      rr.push_back(c.roof_ratio);
      ef.push_back(c.efficiency);
    }
  r.overall.name = "overall";
  r.overall.members = static_cast<int64_t>(r.categories.size());
  r.overall.valid_members = static_cast<int64_t>(s.size());
  r.overall.score = stats::geometric_mean(s);
  r.overall.roof_ratio = stats::geometric_mean(rr);
  r.overall.efficiency = stats::geometric_mean(ef);
  for (const auto& c : r.categories) r.overall.incomplete = r.overall.incomplete || c.incomplete || c.score <= 0;
  int64_t figures = 0, from_evidence = 0;
  for (const auto& w : r.workloads)
    for (const auto& f : w.figures)
      if (f.score > 0) ++figures, from_evidence += learned(f);
  r.overall.explanation = explain(r.overall, efficiency_origin(from_evidence, figures));
  return r;
}

bool projects_this_machine(const std::string& device) { return device == "this" || device == "measured"; }

ProjectionTarget projection_target(const std::string& device,
                                   const std::function<std::optional<HardwareInfo>()>& this_machine_roofs) {
  ProjectionTarget t;
  if (projects_this_machine(device)) {
    std::optional<HardwareInfo> roofs = this_machine_roofs();
    if (!roofs) throw UserError("--project " + device + ": this machine's roofs could not be measured");
    t.roofs = *roofs;
    t.device = "this machine (" + roofs->machine.model + ", measured roofs)";
    t.roofs_source = "measured";
    return t;
  }
  const hw::DatasheetDevice& d = hw::find_datasheet_device(device);
  t.roofs = hw::datasheet_hardware(d);
  t.device = d.name;
  t.roofs_source = "datasheet";
  return t;
}

std::vector<CalibrationRow> calibration_error(const ScoreResult& projected, const ScoreResult& measured) {
  if (projected.kind != "projected" || measured.kind != "measured")
    throw UserError("calibration needs a projected and a measured score");
  if (projected.suite != measured.suite || projected.quick != measured.quick)
    throw UserError("calibration: the projected and measured scores are of different suites or modes (" +
                    projected.suite + (projected.quick ? " quick" : " full") + " vs " + measured.suite +
                    (measured.quick ? " quick" : " full") + "): never compared");
  std::vector<CalibrationRow> out;
  std::vector<double> p_common, m_common;
  for (const auto& p : projected.categories)
    for (const auto& m : measured.categories)
      if (p.name == m.name && p.score > 0 && m.score > 0) {
        out.push_back({p.name, p.score, m.score, p.score / m.score - 1});
        p_common.push_back(p.score);
        m_common.push_back(m.score);
      }
  if (out.empty()) return out;
  const size_t all = std::max(projected.categories.size(), measured.categories.size());
  const double p = stats::geometric_mean(p_common), m = stats::geometric_mean(m_common);
  out.push_back({out.size() < all ? fmt::format("overall ({} of {} categories)", out.size(), all) : "overall", p, m,
                 p / m - 1});
  return out;
}

}  // namespace rooflens
