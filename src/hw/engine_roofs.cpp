#include "hw/engine_roofs.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/level_names.h"
#include "hw/hw_table.h"
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

// Levels are found again on a raised sweep (hw/raise_roofs.h): what they say is said once.
void add_note(EngineRoofs& e, const std::string& note) {
  if (std::find(e.notes.begin(), e.notes.end(), note) == e.notes.end()) e.notes.push_back(note);
}

// Where the native sweep at `threads` found DRAM's plateau to begin; 0: it found none (or there is no native sweep).
uint64_t native_dram_start(const HardwareInfo* native, int64_t threads) {
  if (!native) return 0;
  for (const MemoryLevel& l : native->levels)
    if (l.threads == threads && l.level == kDramName) return l.first_bytes;
  return 0;
}

// DRAM for an engine's sweep that found no plateau of its own: from where the native sweep's DRAM began, when the
// engine's sweep has two points or more there and no level of its own reaches that far. Its kernels use the same
// memory; what differs is that their curve can keep falling past that point (WebAssembly's 1-thread read on a Zen 4
// guest: 29.7 GB/s at 128 MiB, 27.1 at 256, 18.8 at 512, 11.5 at 1 GiB), and a plateau is what levels.cpp looks for.
// The figure is each kernel's best point from there on, as STREAM's rule takes it. False: nothing added.
bool add_dram_from_native(SweepLevels& lv, const std::map<std::string, KernelSweep>& by_kernel, uint64_t start) {
  if (!start || lv.dram) return false;
  for (const FoundLevel& l : lv.levels)
    if (l.last_bytes >= start) return false;
  uint64_t last = 0;
  std::vector<LevelFigure> figures;
  for (const auto& [name, k] : by_kernel) {
    LevelFigure best{std::string(kDramName), name, 0, 0};
    int points = 0;
    for (const BwSample& p : k.points) {
      if (static_cast<double>(p.working_set_bytes) < 0.99 * static_cast<double>(start)) continue;
      ++points;
      last = std::max(last, p.working_set_bytes);
      if (p.gbps > best.gbps) best = {std::string(kDramName), name, p.gbps, p.working_set_bytes};
    }
    if (points >= 2) figures.push_back(best);
  }
  if (figures.empty()) return false;
  lv.levels.push_back({std::string(kDramName), start, last, 0});
  for (LevelFigure& f : figures) lv.figures.push_back(std::move(f));
  lv.dram = true;
  return true;
}

void find_levels_of(EngineRoofs& e, const MachineDesc& m, const HardwareInfo* native) {
  std::set<int64_t> counts;
  for (const SweepPoint& p : e.sweep) counts.insert(p.threads);
  std::vector<ThreadCountSweep> sweeps;
  std::vector<std::map<std::string, KernelSweep>> kernels;  // per thread count, as sweeps[i] holds them
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
      c.kernels.push_back(k);
    }
    sweeps.push_back(std::move(c));
    kernels.push_back(std::move(by_kernel));
  }
  std::vector<SweepLevels> found = find_levels_by_thread_count(sweeps);
  e.levels.clear();
  e.memory.clear();
  size_t i = 0;
  for (int64_t t : counts) {
    SweepLevels& lv = found[i];
    const uint64_t dram_start = native_dram_start(native, t);
    if (add_dram_from_native(lv, kernels[i++], dram_start))
      add_note(e, "x" + std::to_string(t) + ": DRAM from " + binary_bytes(dram_start) +
                      " on, where the native sweep found its plateau: this sweep keeps falling there and found none");
    for (const LevelFigure& f : lv.figures) e.memory.push_back({f.level, f.kernel, t, f.gbps, f.working_set_bytes});
    for (const FoundLevel& l : lv.levels)
      e.levels.push_back({l.level, t, l.first_bytes, l.last_bytes, l.reported_bytes});
    if (!lv.dram) add_note(e, "x" + std::to_string(t) + ": the sweep found no DRAM plateau");
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
// 5: levels named after the caches the native sweep found (that guest's WebAssembly L3 was called "L2"). 6: DRAM where
// the native sweep found it when the engine's sweep keeps falling (a Zen 4 guest's had none at 1 thread).
constexpr int kEngineRoofsRevision = 6;

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
