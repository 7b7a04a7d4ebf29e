#pragma once
// The one spelling of a command's main output: `-o,--output FILE` (analyze, lint, export, report, import, profile,
// generate, whatif alike). Commands that used `-f FILE` (and a long name of their own) keep accepting it for one
// release, hidden from --help, with a note on stderr saying to use -o.
#include <string>

namespace CLI {
class App;
}

namespace rooflens {

void add_output_option(CLI::App& cmd, std::string& path, const std::string& help,
                       const std::string& deprecated_long_name = "");

}  // namespace rooflens
