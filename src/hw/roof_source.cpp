#include "hw/roof_source.h"

#include <algorithm>

#include <fmt/format.h>

#include "hw/cpu_features.h"
#include "hw/engine_roofs.h"
#include "hw/machine.h"
#include "hw/measure.h"
#include "hw/raise_roofs.h"
#include "hw/roof_cache.h"

namespace rooflens::hw {
namespace {

// An unwritable cache costs the next run a measurement, not this report.
void cache_quietly(const HardwareInfo& h) {
  try {
    store_cached(cache_dir_from_env(), h);
  } catch (const std::exception&) {
  }
}

}  // namespace

std::optional<HardwareInfo> cached_roofs_here() {
  const MachineDesc here = describe_machine(detect_features());
  return load_cached(cache_dir_from_env(), cache_key(here, ROOFLENS_VERSION), false);
}

std::optional<HardwareInfo> obtain_roofs(const RoofSource& r) {
  if (r.none) return std::nullopt;
  if (!r.file.empty()) return load_roofs_file(r.file);
  if (auto cached = cached_roofs_here()) return cached;
  if (r.note) r.note("no cached roofs for this machine; measuring them (hw --quick)…");
  HwOptions opts;
  opts.quick = true;
  HardwareInfo h = measure_hardware(opts, ROOFLENS_VERSION);
  cache_quietly(h);
  return h;
}

std::function<std::optional<HardwareInfo>(const HardwareInfo&, const ProfileRun&)> roof_recheck(const RoofSource& r) {
  if (r.none || !r.file.empty()) return {};
  return [r](const HardwareInfo& have, const ProfileRun& run) -> std::optional<HardwareInfo> {
    HwOptions opts;
    opts.quick = true;
    opts.threads = {static_cast<int>(std::max<int64_t>(1, run.threads))};
    opts.compute = opts.bandwidth = false;
    int64_t above = 0;
    for (const Layer& l : run.layers) {
      if (l.attribution_error.empty()) continue;
      ++above;
      (l.bound == "compute" ? opts.compute : opts.bandwidth) = true;
    }
    if (!above) return std::nullopt;
    if (r.note)
      r.note(fmt::format("{} layer(s) ran above the cached roofs; measuring the {} ceilings at {} thread(s) again…",
                         above, opts.compute ? opts.bandwidth ? "compute and memory" : "compute" : "memory",
                         opts.threads[0]));
    std::optional<HardwareInfo> raised = raise_roofs(have, measure_hardware(opts, ROOFLENS_VERSION));
    if (raised) cache_quietly(*raised);
    return raised;
  };
}

namespace {

// Where an engine's roofs are cached for this machine: the machine, and the key of `engine` as `runtime` runs it.
struct EngineCacheSlot {
  MachineDesc here = describe_machine(detect_features());
  std::string native_key = cache_key(here, ROOFLENS_VERSION);
  std::string key;
  EngineCacheSlot(const std::string& engine, const std::string& runtime)
      : key(engine_cache_key(native_key, engine, runtime)) {}
};

// Its levels, found here for every engine: named after the caches the native sweep found, when this machine's native
// roofs are cached (they are whenever a run or `rooflens hw` measured them) — an engine's slower loads blur a fall
// that the reported sizes alone then name wrongly (a Zen 5 guest's WebAssembly L3 called "L2").
void find_levels_here(EngineRoofs& e, const EngineCacheSlot& slot) {
  if (std::optional<HardwareInfo> native = load_cached(cache_dir_from_env(), slot.native_key, false))
    find_engine_levels(e, slot.here, *native);
  else
    find_engine_levels(e, slot.here);
}

void cache_engine_quietly(const EngineCacheSlot& slot, const EngineRoofs& e) {
  try {
    store_cached_engine(cache_dir_from_env(), slot.key, slot.here, e);
  } catch (const std::exception&) {  // an unwritable cache costs the next run a measurement, not this one
  }
}

}  // namespace

std::optional<EngineRoofs> engine_roofs_here(const std::string& engine, const std::string& runtime,
                                             const std::function<std::optional<EngineRoofs>()>& measure, bool refresh,
                                             const std::function<void(const std::string&)>& note) {
  const EngineCacheSlot slot(engine, runtime);
  if (!refresh)
    if (auto cached = load_cached_engine(cache_dir_from_env(), slot.key)) return cached;
  if (note) note("measuring the roofs of " + engine + " (its own kernels)…");
  std::optional<EngineRoofs> e = measure();
  if (!e) return e;
  find_levels_here(*e, slot);
  cache_engine_quietly(slot, *e);
  return e;
}

EngineRoofsRecheck engine_roof_recheck(const RoofSource& r) {
  if (r.none || !r.file.empty()) return {};
  return [r](const EngineRoofs& have, const std::string& runtime, const ProfileRun& run,
             const std::function<std::optional<EngineRoofs>()>& measure) -> std::optional<EngineRoofs> {
    const auto above = std::count_if(run.layers.begin(), run.layers.end(),
                                     [](const Layer& l) { return !l.attribution_error.empty(); });
    if (!above) return std::nullopt;
    if (r.note)
      r.note(fmt::format("{} layer(s) ran above the cached roofs of {}; measuring them again…", above, have.engine));
    std::optional<EngineRoofs> now = measure();
    if (!now) return std::nullopt;
    const EngineCacheSlot slot(have.engine, runtime);
    std::optional<EngineRoofs> raised =
        raise_engine_roofs(have, *now, [&slot](EngineRoofs& e) { find_levels_here(e, slot); });
    if (raised) cache_engine_quietly(slot, *raised);
    return raised;
  };
}

EngineRoofsHook engine_roofs_source(const RoofSource& r) {
  if (r.none || !r.file.empty()) return {};
  return [r](const std::string& engine, const std::string& runtime,
             const std::function<std::optional<EngineRoofs>()>& measure) {
    return engine_roofs_here(engine, runtime, measure, false, r.note);
  };
}

}  // namespace rooflens::hw
