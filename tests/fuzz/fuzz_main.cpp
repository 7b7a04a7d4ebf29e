// The libFuzzer program of every target in fuzz_targets.h: ROOFLENS_FUZZ_TARGET names the one a run fuzzes
// (`analyze`, `report_readers`, `values`, `history`, `score`, `fleet`, or `import:FORMAT`). A missing or unknown name
// stops the program before the first input, with the names it knows.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "core/errors.h"
#include "fuzz_targets.h"
#include "importers/registry/registry.h"

namespace {

using Target = std::function<int(const uint8_t*, size_t)>;

constexpr std::pair<std::string_view, int (*)(const uint8_t*, size_t)> kTargets[] = {
    {"analyze", rooflens::fuzz::analyze}, {"report_readers", rooflens::fuzz::report_readers},
    {"values", rooflens::fuzz::values},   {"history", rooflens::fuzz::history},
    {"score", rooflens::fuzz::score},     {"fleet", rooflens::fuzz::fleet},
};
constexpr std::string_view kImportPrefix = "import:";

[[noreturn]] void refuse(const std::string& why) {
  std::string names;
  for (const auto& [name, run] : kTargets) names += std::string(name) + ", ";
  std::fprintf(stderr, "rooflens_fuzz: %s; set ROOFLENS_FUZZ_TARGET to one of %s%sFORMAT\n", why.c_str(), names.c_str(),
               std::string(kImportPrefix).c_str());
  std::exit(2);
}

Target choose(const char* env) {
  if (!env || !*env) refuse("ROOFLENS_FUZZ_TARGET is not set");
  const std::string_view name = env;
  for (const auto& [known, run] : kTargets)
    if (name == known) return run;
  if (name.starts_with(kImportPrefix)) {
    try {
      const auto& importer = rooflens::importers::find_importer(std::string(name.substr(kImportPrefix.size())));
      return [&importer](const uint8_t* data, size_t size) { return rooflens::fuzz::import(importer, data, size); };
    } catch (const rooflens::UsageError& e) {
      refuse(e.what());
    }
  }
  refuse("no fuzz target '" + std::string(name) + "'");
}

const Target& chosen() {
  static const Target target = choose(std::getenv("ROOFLENS_FUZZ_TARGET"));
  return target;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)chosen();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return chosen()(data, size); }
