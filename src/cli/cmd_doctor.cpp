// `rooflens doctor`: is this installation ready — the runtimes start, the roofs are cached, the database opens, the
// optional tools are there — and what to install for whatever is missing. Exit 1 when a required part is missing.
#include <iostream>

#include "cli/commands.h"
#include "cli/setup_check.h"
#include "core/build_info.h"

namespace rooflens::cli {

void setup_doctor(CLI::App& root, Action& action) {
  CLI::App* cmd = root.add_subcommand("doctor", "Check this setup: runtimes, roofs, database, optional tools");
  cmd->footer(
      "Each line says what was found, or why not and what to install. Exit 1 when ONNX Runtime's runner cannot\n"
      "start (nothing can be profiled); the other parts are optional.\n"
      "Examples:\n"
      "  rooflens doctor\n"
      "  ROOFLENS_DB=postgresql://me@db/rooflens rooflens doctor");
  cmd->callback([&action] {
    action = [] {
      std::vector<SetupItem> items = runtime_items();
      for (auto& it : environment_items()) items.push_back(std::move(it));
      bool ready = true;
      std::cout << "rooflens " << ROOFLENS_VERSION << " (" << rooflens_commit() << ")\n";
      for (const auto& it : items) {
        std::cout << (it.ok ? "  ok       " : it.required ? "  MISSING  " : "  missing  ") << it.what << ": " << it.detail
                  << "\n";
        if (!it.ok && it.required) ready = false;
      }
      std::cout << (ready ? "ready: rooflens can profile on this machine\n"
                          : "not ready: install what is MISSING (make deps-run), then run rooflens doctor again\n");
      return ready ? 0 : 1;
    };
  });
}

}  // namespace rooflens::cli
