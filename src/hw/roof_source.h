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

}  // namespace rooflens::hw
