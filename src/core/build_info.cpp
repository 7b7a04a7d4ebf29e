#include "core/build_info.h"

namespace rooflens {

ToolInfo tool_info(const std::string& command) {
  ToolInfo t;
  t.version = ROOFLENS_VERSION;
  t.command = command;
  t.commit = rooflens_commit();
  t.built_with = built_with();
  return t;
}

}  // namespace rooflens
