#pragma once
// TEST ONLY: a live runner decorator that makes the runtime process fail as a crashing or hanging model would, so
// the crash-isolation paths of `rooflens bench` are tested through the real live runner and its runner process.
// `rooflens bench` wraps its live runners in it when ROOFLENS_TEST_HOOKS=1 and a model list names a fault.
#include <map>
#include <memory>
#include <string>

#include "backends/backend.h"

namespace rooflens {

// Faults by model name (ModelLoad::name): "segv" and "sigkill" send that signal to the runtime process, "hang"
// stops it (SIGSTOP), just before the first run of that model after its load; the wrapped live runner then sees a crash
// or a timeout as it would for a real one. Throws UsageError for an unknown fault name.
std::unique_ptr<LiveRunner> with_injected_faults(std::unique_ptr<LiveRunner> live,
                                                  std::map<std::string, std::string> faults);

}  // namespace rooflens
