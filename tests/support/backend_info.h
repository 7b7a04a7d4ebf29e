#pragma once
// A report's backend as tests write it: every field set by name (an aggregate with fields left out trips
// -Wmissing-field-initializers, which the build treats as an error).
#include <map>
#include <string>

#include "core/report_run.h"

namespace rooflens::testing {

inline BackendInfo backend_info(std::string name, std::string version, std::map<std::string, std::string> options,
                                std::string runtime) {
  BackendInfo b;
  b.name = std::move(name);
  b.version = std::move(version);
  b.options = std::move(options);
  b.runtime = std::move(runtime);
  return b;
}

}  // namespace rooflens::testing
