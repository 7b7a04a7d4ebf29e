#pragma once
// What this build of rooflens is: its version, the commit it was built from, and the libraries it linked (with the
// versions their packages declared at configure time). Every report carries them (ToolInfo); `rooflens --version`
// prints them with the runtimes it finds.
#include <string>
#include <vector>

#include "core/tool_info.h"

namespace rooflens {

const char* rooflens_commit();        // `git describe` of the source tree when built ("unknown ..." outside git)
std::vector<Component> built_with();  // library name and version

// The ToolInfo every report carries: name, version, command, commit, the libraries it was built with.
ToolInfo tool_info(const std::string& command);

}  // namespace rooflens
