#pragma once
// The project's own fixtures of other tools' file layouts (tests/fixtures/import/), read as importer input.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "importers/importer.h"

namespace rooflens::test {

inline std::string fixture_path(const std::string& rel) { return std::string(ROOFLENS_FIXTURES_DIR) + "/import/" + rel; }

inline importers::InputFile fixture(const std::string& rel) {
  std::ifstream f(fixture_path(rel), std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return {fixture_path(rel), s.str()};
}

inline std::vector<importers::InputFile> fixtures(const std::vector<std::string>& rel) {
  std::vector<importers::InputFile> out;
  for (const auto& r : rel) out.push_back(fixture(r));
  return out;
}

}  // namespace rooflens::test
