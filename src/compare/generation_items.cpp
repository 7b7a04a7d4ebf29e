#include "compare/generation_items.h"

#include <algorithm>
#include <map>

#include "core/comparison.h"

namespace rooflens {
namespace {

std::optional<std::vector<Layer>> phase_layers(const GenerationRun& run, Phase phase) {
  for (const auto& p : run.phases)
    if (p.phase == phase) return p.layers;
  return std::nullopt;
}

CompareItem item(const std::string& model, const std::string& config, const std::vector<double>& samples,
                 std::vector<int64_t> repetitions, const LatencyStats& stats) {
  CompareItem i;
  i.model = model;
  i.config = config;
  i.status = status::kPass;
  i.samples_ms = samples;
  i.repetitions = std::move(repetitions);
  i.stats = stats;
  return i;
}

void put(CompareSource& src, CompareItem i) {
  auto same = [&](const CompareItem& o) { return o.model == i.model && o.config == i.config; };
  auto it = std::find_if(src.items.begin(), src.items.end(), same);
  if (it != src.items.end()) *it = std::move(i);
  else src.items.push_back(std::move(i));
}

}  // namespace

void add_generation_items(CompareSource& src, const Report& r, const std::string& model) {
  for (const auto& run : r.generation->runs)
    for (auto& g : generation_items(run)) {
      CompareItem i = item(model, g.config, *g.samples_ms, std::move(g.repetitions), *g.stats);
      i.layers = phase_layers(run, g.phase);
      put(src, std::move(i));
    }
  for (const auto& f : r.failures) {  // a failure's key has the runs' dims ("gen", "prompt"): the same label
    for (const char* suffix : {kTtftItem, kTpotItem}) {
      CompareItem i;
      i.model = model;
      i.config = f.label() + suffix;
      i.status = status::of_failure(f.kind);
      i.error = f.stage.empty() ? f.message : f.stage + ": " + f.message;
      std::replace(i.error.begin(), i.error.end(), '\n', ' ');
      put(src, std::move(i));
    }
  }
}

}  // namespace rooflens
