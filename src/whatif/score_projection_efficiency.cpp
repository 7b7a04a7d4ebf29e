#include "whatif/score_projection_efficiency.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/errors.h"
#include "hw/cpu_features.h"
#include "stats/order.h"

namespace rooflens {
namespace {

// A stored score may teach the target: measured, of the target's suite and class, and not the run the projection
// predicts (the target machine in the projection's own mode).
bool teaches(const EfficiencyEvidence& e, const EfficiencyTarget& t) {
  const ScoreResult& r = e.result;
  if (t.isa_class.empty() || r.kind != "measured" || r.partial || r.suite != t.suite) return false;
  if (!t.machine.empty() && e.machine == t.machine && r.quick == t.quick) return false;
  return isa_class_of(r.machine.machine) == t.isa_class;
}

}  // namespace

std::string isa_class_of(const MachineDesc& m) {
  std::string list;
  for (const auto& f : m.isa) list += (list.empty() ? "" : ",") + f;
  try {
    return hw::isa_class(hw::parse_features(list));
  } catch (const UserError&) {
    return "other";
  }
}

EfficiencyTable::EfficiencyTable(const std::vector<EfficiencyEvidence>& stored, const EfficiencyTarget& target)
    : target_(target) {
  for (const auto& e : stored)
    if (teaches(e, target_)) kept_.push_back(&e);
}

template <class Pick>
double EfficiencyTable::learn(Pick pick) const {
  std::map<std::string, std::vector<double>> by_machine;
  for (const EfficiencyEvidence* e : kept_)
    if (const double x = pick(e->result); x > 0 && std::isfinite(x)) by_machine[e->machine].push_back(x);
  // Each machine counts once however many scores it stored: the geometric mean of each machine's geometric mean.
  std::vector<double> machines;
  for (const auto& [m, figures] : by_machine) machines.push_back(stats::geometric_mean(figures));
  return stats::geometric_mean(machines);
}

LearnedEfficiency EfficiencyTable::of(const std::string& workload, const std::string& metric,
                                      const std::string& category) const {
  const double figure = learn([&](const ScoreResult& r) {
    for (const auto& w : r.workloads)
      if (w.id == workload && w.status == WorkloadStatus::valid)
        for (const auto& f : w.figures)
          if (f.metric == metric && f.score > 0) return f.efficiency;
    return 0.0;
  });
  if (figure > 0) return {figure, true, fmt::format("{}'s {} in {}", workload, metric, sources())};
  const double cat = learn([&](const ScoreResult& r) {
    for (const auto& c : r.categories)
      if (c.name == category && c.score > 0) return c.efficiency;
    return 0.0;
  });
  if (cat > 0) return {cat, true, fmt::format("the {} category in {}", category, sources())};
  return {1, false, target_.isa_class.empty()
                        ? "assumed (the reference's): a datasheet device has no measured scores to learn from"
                        : fmt::format("assumed (the reference's): no stored measured score of an {} machine has it",
                                      target_.isa_class)};
}

std::string EfficiencyTable::sources() const {
  std::map<std::string, std::string> machines;  // id -> "CPU model (full, quick)"
  std::map<std::string, std::vector<std::string>> modes;
  for (const EfficiencyEvidence* e : kept_) {
    machines[e->machine] = e->result.machine.machine.model.empty() ? e->machine : e->result.machine.machine.model;
    modes[e->machine].push_back(e->result.quick ? "quick" : "full");
  }
  std::string list;
  for (const auto& [id, model] : machines) {
    std::map<std::string, int> count;
    for (const auto& m : modes[id]) ++count[m];
    std::string how;
    for (const auto& [m, n] : count) how += fmt::format("{}{} {}", how.empty() ? "" : ", ", n, m);
    list += fmt::format("{}{} ({})", list.empty() ? "" : "; ", model, how);
  }
  return fmt::format("{} measured score{} of {} machine{} ({}): {}", kept_.size(), kept_.size() == 1 ? "" : "s",
                     machines.size(), machines.size() == 1 ? "" : "s", target_.isa_class, list);
}

std::string EfficiencyTable::summary() const {
  if (kept_.empty())
    return target_.isa_class.empty()
               ? "assumed equal to the reference's (a datasheet device: no measured scores to learn from)"
               : fmt::format("assumed equal to the reference's: no stored measured score of an {} machine (suite {}) "
                             "other than the run projected",
                             target_.isa_class, target_.suite);
  return "learned per figure from " + sources();
}

}  // namespace rooflens
