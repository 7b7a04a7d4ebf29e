#include "hw/engine_roofs.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/level_names.h"
#include "hw/levels.h"
#include "hw/machine.h"
#include "hw/roof_cache.h"

namespace rooflens::hw {

namespace {

// The hints for `threads`: the machine's reported capacities, each replaced by what the native sweep at that thread
// count found for that cache — the reported size that named its fall, or, for a level named from the sweep alone,
// where its fall began (a fall of the engine's sweep agrees within a factor of 2 of its own beginning; twice that,
// the capacity levels.cpp estimates, would agree with the engine's slope out of that cache). A native level spanning
// several caches ("L1+L2") places its last one. True when a native level was used.
bool measured_capacities(const MachineDesc& m, const HardwareInfo* native, int64_t threads, std::vector<uint64_t>& caps) {
  caps = cache_capacities(m, static_cast<int>(threads));
  if (!native) return false;
  bool used = false;
  for (const MemoryLevel& l : native->levels) {
    const std::optional<LevelSpan> span = level_span(l.level);
    if (l.threads != threads || !span || span->last == kDramLevel || l.last_bytes == 0) continue;
    const auto slot = static_cast<size_t>(span->last - 1);
    if (caps.size() <= slot) caps.resize(slot + 1, 0);  // a slot nothing names stays 0: "no size" to levels.cpp
    caps[slot] = l.reported_bytes ? l.reported_bytes : l.last_bytes;
    used = true;
  }
  return used;
}

void find_levels_of(EngineRoofs& e, const MachineDesc& m, const HardwareInfo* native) {
  std::set<int64_t> counts;
  for (const SweepPoint& p : e.sweep) counts.insert(p.threads);
  std::vector<ThreadCountSweep> sweeps;
  for (int64_t t : counts) {
    ThreadCountSweep c;
    c.reported_measured = measured_capacities(m, native, t, c.reported);
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

}  // namespace

void find_engine_levels(EngineRoofs& e, const MachineDesc& m) { find_levels_of(e, m, nullptr); }

void find_engine_levels(EngineRoofs& e, const MachineDesc& m, const HardwareInfo& native) {
  find_levels_of(e, m, &native);
}

// Bumped when an engine's kernels change (runners/ort/wasm_roofs.mjs), so roofs cached by the older ones are measured
// again. 2: the read kernel streams four quarters of its array at once, and the quick sweep measures copy too. 3: a
// multi-thread compute roof below the 1-thread one is measured again (such figures were cached from busy machines).
// 4: the sweep goes to 1 GiB per thread (quick: by factors of 2): at 256 MiB, by 4, a Zen 5 guest's found no DRAM.
// 5: levels named after the caches the native sweep found (that guest's WebAssembly L3 was called "L2").
constexpr int kEngineRoofsRevision = 5;

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
