// `rooflens __runner NAME` (hidden): the child-process side of a backend whose runtime is linked into rooflens
// itself. The backend's parent side starts it (the same binary) and speaks the runner protocol with it, so a
// runtime that crashes or hangs ends this process, not the one measuring.
#include "backends/registry/registry.h"
#include "cli/commands.h"

namespace rooflens::cli {

void setup_runner(CLI::App& root, Action& action) {
  auto name = std::make_shared<std::string>();
  CLI::App* cmd = root.add_subcommand("__runner", "");  // an empty description hides it from --help
  cmd->add_option("backend", *name, "Backend whose runner to serve")->required();
  cmd->callback([name, &action] { action = [name] { return run_backend_runner(*name); }; });
}

}  // namespace rooflens::cli
