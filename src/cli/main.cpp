// rooflens entry point: the command line (cli/entry.cpp) and its exit code (0 ok, 1 failure, 2 usage).
#include "cli/entry.h"

int main(int argc, char** argv) { return rooflens::cli::run_command_line(argc, argv); }
