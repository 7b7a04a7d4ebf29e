#pragma once
// Where a measuring command's roofs come from: --roofs FILE, else this machine's cached measurement, else a quick one
// now (then cached); and, when a run's layers went above cached roofs, those ceilings measured again. Shared by
// profile, generate, capacity and score. What it tells the user goes through `note` (the command words it).
#include <functional>
#include <optional>
#include <string>

#include "core/report_hardware.h"
#include "core/report_run.h"

namespace rooflens::hw {

struct RoofSource {
  bool none = false;  // --no-roofs
  std::string file;   // --roofs FILE
  // Told when roofs are measured now (none cached, or a recheck); unset: nothing said.
  std::function<void(const std::string&)> note;
};

// This machine's cached roofs of this rooflens version (quick or full), or nullopt.
std::optional<HardwareInfo> cached_roofs_here();

std::optional<HardwareInfo> obtain_roofs(const RoofSource& r);

// ProfileHooks::recheck_roofs for roofs obtain_roofs measured or took from the cache: the ceilings a run's layers
// went above (compute, memory or both, at the run's thread count) measured again now (hw --quick's way), merged by
// raise_roofs, and the raised roofs cached. Unset for --roofs FILE (the user's figures are theirs) and --no-roofs.
std::function<std::optional<HardwareInfo>(const HardwareInfo&, const ProfileRun&)> roof_recheck(const RoofSource& r);

// An engine's roofs on this machine as `runtime` runs it (hw/engine_roofs.h's cache key): cached, unless `refresh`, else
// `measure`d now (told through `note`) and cached.
std::optional<EngineRoofs> engine_roofs_here(const std::string& engine, const std::string& runtime,
                                             const std::function<std::optional<EngineRoofs>()>& measure, bool refresh,
                                             const std::function<void(const std::string&)>& note);

// ProfileHooks::engine_roofs: an engine's roofs (WebAssembly) for a run whose kernels ran in it — cached for this
// machine, `engine` and `runtime` (the backend's build), else `measure`d now (the backend's own kernels, in a process of
// their own) and cached. Unset for --roofs FILE (only the engines the file holds) and --no-roofs.
using EngineRoofsHook = std::function<std::optional<EngineRoofs>(
    const std::string& engine, const std::string& runtime, const std::function<std::optional<EngineRoofs>()>& measure)>;
EngineRoofsHook engine_roofs_source(const RoofSource& r);

// ProfileHooks::recheck_engine_roofs: when a run's layers went above an engine's roofs (`have`, cached or measured for
// this machine, `engine` and `runtime`), that engine's roofs measured again now by `measure` (the backend's own
// kernels, hw --quick's way), merged by raise_engine_roofs, and the raised ones cached. Unset for --roofs FILE and
// --no-roofs, as roof_recheck is.
using EngineRoofsRecheck = std::function<std::optional<EngineRoofs>(
    const EngineRoofs& have, const std::string& runtime, const ProfileRun& run,
    const std::function<std::optional<EngineRoofs>()>& measure)>;
EngineRoofsRecheck engine_roof_recheck(const RoofSource& r);

}  // namespace rooflens::hw
