#include "compare/projection_items.h"

#include <unordered_map>

#include "core/comparison.h"

namespace rooflens {
namespace {

std::vector<Layer> projected_layers(const ProfileRun& run, const RunProjection& p) {
  std::unordered_map<std::string, double> time;
  for (const auto& l : p.layers) time[l.name] = l.time_ms;
  std::vector<Layer> out = run.layers;
  double total = 0;
  for (auto& l : out) {
    if (auto it = time.find(l.name); it != time.end()) l.time_ms = it->second;
    total += l.time_ms;
  }
  for (auto& l : out) l.share = total > 0 ? l.time_ms / total : 0;
  return out;
}

}  // namespace

bool add_projection_items(CompareSource& src, const Report& r, const std::string& model) {
  if (!r.whatif || r.whatif->runs.empty()) return false;
  src.description = "PROJECTION of " + model + " onto " + r.whatif->target + " (whatif; not measured)";
  for (const auto& p : r.whatif->runs) {
    const ProfileRun* run = nullptr;
    for (const auto& candidate : r.runs)
      if (candidate.label() == p.run) run = &candidate;
    if (!run) continue;
    CompareItem item;
    item.model = model;
    item.config = run->label();
    item.status = status::kPass;
    item.stats.median = p.projected_ms;  // n stays 0: no sample was taken
    item.layers = projected_layers(*run, p);
    item.profile_config = run->key();
    src.items.push_back(std::move(item));
  }
  return true;
}

}  // namespace rooflens
