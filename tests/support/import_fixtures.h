#pragma once
// The project's own fixtures of other tools' file layouts (tests/fixtures/import/), read as importer input.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "assembly/assemble.h"
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

// An importer's reading and the run assembled from it as `rooflens import` assembles it without --model: the
// format's mapping rules, and the peaks the files state when they state some (Nsight Compute).
struct ImportedRun {
  importers::Imported in;
  ProfileRun run;
};

inline ImportedRun assembled(importers::Imported in) {
  ImportedRun r{std::move(in), {}};
  AssemblyContext ctx;
  ctx.rules = r.in.rules;
  if (r.in.hardware) ctx.hw = &*r.in.hardware;
  r.run = assemble_run(RunKey{}, r.in.measurement, ctx);
  return r;
}

}  // namespace rooflens::test
