#pragma once
// Reading lint's findings in tests.
#include <string>

#include <gtest/gtest.h>

#include "core/findings.h"

namespace rooflens::testing {

// The value of a finding's evidence called `name`; a test failure (and -1) when it has none.
inline double evidence(const Finding& f, const std::string& name) {
  for (const auto& e : f.evidence)
    if (e.name == name) return e.value;
  ADD_FAILURE() << "no evidence '" << name << "' in " << f.rule;
  return -1;
}

}  // namespace rooflens::testing
