#pragma once
// The whole command line of rooflens (cli/entry.cpp); main() is this one call.

namespace rooflens::cli {

int run_command_line(int argc, char** argv);

}  // namespace rooflens::cli
