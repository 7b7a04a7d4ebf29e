#include "cli/output_flags.h"

#include <iostream>

#include <CLI/CLI.hpp>

namespace rooflens {

void add_output_option(CLI::App& cmd, std::string& path, const std::string& help,
                       const std::string& deprecated_long_name) {
  cmd.add_option("-o,--output", path, help);
  const std::string old = "-f" + (deprecated_long_name.empty() ? "" : ",--" + deprecated_long_name);
  const std::string name = cmd.get_name();
  cmd.add_option(old, path, "Deprecated spelling of -o")
      ->group("")  // hidden
      ->each([name](const std::string&) {
        std::cerr << "rooflens " << name << ": -f is deprecated and goes away in the next release; use -o FILE\n";
      });
}

}  // namespace rooflens
