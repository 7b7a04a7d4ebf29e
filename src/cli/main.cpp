// rooflens entry point: builds the CLI from the command registry and maps outcomes to exit codes
// (0 ok, 1 failure, 2 usage).
#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "cli/setup_check.h"
#include "core/errors.h"

int main(int argc, char** argv) {
  CLI::App app{"rooflens — profile and benchmark ONNX model inference"};
  app.require_subcommand(1);
  // --version: rooflens, its commit, the runtimes it can start now and the libraries it was built with.
  app.set_version_flag("--version", [] { return rooflens::cli::version_text(); });
  rooflens::cli::Action action;
  for (auto setup : rooflens::cli::all_commands()) setup(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    return action ? action() : 0;
  } catch (const rooflens::UsageError& e) {
    std::fprintf(stderr, "rooflens: usage: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rooflens: error: %s\n", e.what());
    return 1;
  }
}
