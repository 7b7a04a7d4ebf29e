// Fuzz target (fuzz_targets.h) for one importer (`import:FORMAT`): the input is one or more
// files separated by the line "@@rooflens-next-file@@"; they go through the importer and, when it accepts them,
// through assemble_run (no model) and the report's JSON. Any input must end in a report or a UserError/UsageError —
// never a crash, a hang, a sanitizer report or an unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "assembly/assemble.h"
#include "core/errors.h"
#include "core/report.h"
#include "fuzz_targets.h"
#include "importers/importer.h"

int rooflens::fuzz::import(const importers::Importer& importer, const uint8_t* data, size_t size) {
  constexpr std::string_view sep = "\n@@rooflens-next-file@@\n";
  std::string_view all(reinterpret_cast<const char*>(data), size);
  std::vector<rooflens::importers::InputFile> files;
  for (size_t pos = 0;;) {
    size_t next = all.find(sep, pos);
    files.push_back({"fuzz" + std::to_string(files.size()) + ".in",
                     std::string(all.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos))});
    if (next == std::string_view::npos || files.size() >= 8) break;
    pos = next + sep.size();
  }
  try {
    rooflens::importers::Imported imported = importer.read(files, {});
    rooflens::AssemblyContext ctx;
    ctx.rules = imported.rules;
    rooflens::Report r;
    r.backends.push_back(imported.backend);
    r.runs.push_back(rooflens::assemble_run(rooflens::RunKey{}, imported.measurement, ctx));
    r.serving = imported.serving;
    (void)rooflens::report_to_json(r);
  } catch (const rooflens::UserError&) {
  } catch (const rooflens::UsageError&) {
  }
  return 0;
}
