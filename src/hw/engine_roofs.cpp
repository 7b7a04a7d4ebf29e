#include "hw/engine_roofs.h"

#include <algorithm>
#include <map>
#include <set>

#include "hw/levels.h"
#include "hw/machine.h"
#include "hw/roof_cache.h"

namespace rooflens::hw {

void find_engine_levels(EngineRoofs& e, const MachineDesc& m) {
  std::set<int64_t> counts;
  for (const SweepPoint& p : e.sweep) counts.insert(p.threads);
  std::vector<ThreadCountSweep> sweeps;
  for (int64_t t : counts) {
    ThreadCountSweep c{{}, cache_capacities(m, static_cast<int>(t))};
    std::map<std::string, KernelSweep> by_kernel;
    for (const SweepPoint& p : e.sweep)
      if (p.threads == t) {
        KernelSweep& k = by_kernel[p.kernel];
        k.kernel = p.kernel;
        k.points.push_back({p.working_set_bytes, p.gbps});
      }
    for (auto& [name, k] : by_kernel) {
      std::stable_sort(k.points.begin(), k.points.end(),
                       [](const BwSample& a, const BwSample& b) { return a.working_set_bytes < b.working_set_bytes; });
      c.kernels.push_back(std::move(k));
    }
    sweeps.push_back(std::move(c));
  }
  const std::vector<SweepLevels> found = find_levels_by_thread_count(sweeps);
  e.levels.clear();
  e.memory.clear();
  size_t i = 0;
  for (int64_t t : counts) {
    const SweepLevels& lv = found[i++];
    for (const LevelFigure& f : lv.figures) e.memory.push_back({f.level, f.kernel, t, f.gbps, f.working_set_bytes});
    for (const FoundLevel& l : lv.levels)
      e.levels.push_back({l.level, t, l.first_bytes, l.last_bytes, l.reported_bytes});
    if (!lv.dram) e.notes.push_back("x" + std::to_string(t) + ": the sweep found no DRAM plateau");
  }
}

// Bumped when an engine's kernels change (runners/ort/wasm_roofs.mjs), so roofs cached by the older ones are measured
// again. 2: the read kernel streams four quarters of its array at once, and the quick sweep measures copy too. 3: a
// multi-thread compute roof below the 1-thread one is measured again (such figures were cached from busy machines).
// 4: the sweep goes to 1 GiB per thread (quick: by factors of 2): at 256 MiB, by 4, a Zen 5 guest's found no DRAM.
constexpr int kEngineRoofsRevision = 4;

std::string engine_cache_key(const std::string& native_key, const std::string& engine, const std::string& runtime) {
  return native_key + "|engine " + engine + " roofs " + std::to_string(kEngineRoofsRevision) + "|" + runtime;
}

// Kept as a hardware section of its own key holding the one engine (hw/roof_cache.h's files, written and read alike).
std::optional<EngineRoofs> load_cached_engine(const std::string& dir, const std::string& key) {
  std::optional<HardwareInfo> h = load_cached(dir, key, false);
  if (!h || h->engines.size() != 1) return std::nullopt;
  return h->engines[0];
}

void store_cached_engine(const std::string& dir, const std::string& key, const MachineDesc& m, const EngineRoofs& e) {
  HardwareInfo h;
  h.cache_key = key;
  h.measured_at = e.measured_at;
  h.quick = e.quick;
  h.machine = m;
  h.engines = {e};
  store_cached(dir, h);
}

}  // namespace rooflens::hw
