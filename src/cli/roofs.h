#pragma once
// The roof flags of a measuring command (--no-roofs, --roofs FILE, -q) as hw::RoofSource, its notes on stderr.
#include <string>

#include "hw/roof_source.h"

namespace rooflens::cli {

// `command` names the command in the notes ("rooflens profile: no cached roofs …"); quiet: no notes.
hw::RoofSource roof_source(bool no_roofs, const std::string& file, bool quiet, const std::string& command);

}  // namespace rooflens::cli
