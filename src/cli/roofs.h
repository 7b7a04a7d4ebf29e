#pragma once
// The ceilings a measuring command places layers against: --roofs FILE, else this machine's cached measurement,
// else a quick one now (then cached). Shared by profile and generate.
#include <optional>
#include <string>

#include "core/report_hardware.h"

namespace rooflens::cli {

// Where a command's roofs come from, as its flags say.
struct RoofsSpec {
  bool none = false;        // --no-roofs
  std::string file;         // --roofs FILE
  bool quiet = false;       // no note on stderr when measuring
  std::string command;      // names the command in that note
};

std::optional<HardwareInfo> obtain_roofs(const RoofsSpec& r);

}  // namespace rooflens::cli
