#pragma once
// The ceilings a measuring command places layers against: --roofs FILE, else this machine's cached measurement,
// else a quick one now (then cached). Shared by profile and generate.
#include <functional>
#include <optional>
#include <string>

#include "core/report_hardware.h"
#include "core/report_run.h"

namespace rooflens::cli {

// Where a command's roofs come from, as its flags say.
struct RoofsSpec {
  bool none = false;        // --no-roofs
  std::string file;         // --roofs FILE
  bool quiet = false;       // no note on stderr when measuring
  std::string command;      // names the command in that note
};

std::optional<HardwareInfo> obtain_roofs(const RoofsSpec& r);

// ProfileHooks::recheck_roofs for roofs obtain_roofs measured or took from the cache: the ceilings a run's layers
// went above (compute, memory or both, at the run's thread count) measured again now (hw --quick's way), merged by
// hw::raise_roofs, and the raised roofs cached. Unset for --roofs FILE (the user's figures are theirs) and --no-roofs.
std::function<std::optional<HardwareInfo>(const HardwareInfo&, const ProfileRun&)> roof_recheck(const RoofsSpec& r);

}  // namespace rooflens::cli
