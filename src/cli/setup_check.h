#pragma once
// What this installation of rooflens has: the runtimes it can start (each registered backend, probed), the libraries
// it was built with, the roofs cached for this machine, the results database, and the optional tools the tests and
// screenshots use. `rooflens --version` prints the first two; `rooflens doctor` all of it, with what to install.
#include <string>
#include <vector>

namespace rooflens::cli {

struct SetupItem {
  std::string what;      // "runtime onnxruntime", "roofs", "database", "chromium"
  bool ok = false;
  bool required = false; // a missing required item fails `doctor` (exit 1)
  std::string detail;    // the version or state when ok, else why not and what to do (one line)
};

// Every registered backend: started and asked its version (seconds: a runner process each).
std::vector<SetupItem> runtime_items();
// The rest of the setup `doctor` checks.
std::vector<SetupItem> environment_items();

// `rooflens --version`: rooflens' version and commit, the runtimes found now, the libraries it was built with.
std::string version_text();

}  // namespace rooflens::cli
