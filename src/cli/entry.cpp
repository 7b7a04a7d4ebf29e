// rooflens' command line: builds the CLI from the command registry and maps outcomes to exit codes (0 ok, 1 failure,
// 2 usage). main.cpp only calls it, so the program's own file compiles in no time and this one joins the CLI's unity
// group (CLI11 is parsed once there).
#include "cli/entry.h"

#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "cli/setup_check.h"
#include "core/errors.h"

namespace rooflens::cli {

int run_command_line(int argc, char** argv) {
  CLI::App app{"rooflens — profile and benchmark ONNX model inference"};
  app.require_subcommand(1);
  // --version: rooflens, its commit, the runtimes it can start now and the libraries it was built with.
  app.set_version_flag("--version", [] { return version_text(); });
  Action action;
  for (auto setup : all_commands()) setup(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    return action ? action() : 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "rooflens: usage: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rooflens: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace rooflens::cli
