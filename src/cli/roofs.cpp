#include "cli/roofs.h"

#include <iostream>

namespace rooflens::cli {

hw::RoofSource roof_source(bool no_roofs, const std::string& file, bool quiet, const std::string& command) {
  hw::RoofSource r{no_roofs, file, {}};
  if (!quiet) r.note = [command](const std::string& what) { std::cerr << "rooflens " << command << ": " << what << "\n"; };
  return r;
}

}  // namespace rooflens::cli
