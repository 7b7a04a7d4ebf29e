#include "importers/registry/registry.h"

#include <cctype>

#include "core/errors.h"
#include "importers/kineto/kineto.h"
#include "importers/megengine/megengine.h"
#include "importers/ncu/ncu.h"
#include "importers/neural_engine/neural_engine.h"
#include "importers/nsys/nsys.h"
#include "importers/onnxruntime/ort_import.h"
#include "importers/openvino/openvino.h"
#include "importers/trtexec/trtexec.h"
#include "importers/aiperf/aiperf.h"
#include "importers/vllm/vllm.h"

namespace rooflens::importers {

const std::vector<const Importer*>& all_importers() {
  static const std::vector<const Importer*> list{
      &trtexec_importer(),
      &ort_importer(),
      &megengine_importer(),
      &neural_engine_importer(),
      &openvino_importer(),
      &kineto_importer(),
      &nsys_importer(),
      &ncu_importer(),
      &vllm_importer(),
      &aiperf_importer(),
  };
  return list;
}

namespace {

// "Neural_Engine" and "neural-engine" are one spelling: lower case, '_' read as '-'.
std::string spelling(std::string s) {
  for (char& c : s) c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

const Importer& find_importer(const std::string& format) {
  std::string names;
  for (const Importer* i : all_importers()) {
    if (spelling(i->name()) == spelling(format)) return *i;
    for (const auto& a : i->aliases())
      if (spelling(a) == spelling(format)) return *i;
    std::string also;
    for (const auto& a : i->aliases()) also += (also.empty() ? "" : ", ") + a;
    names += (names.empty() ? "" : "; ") + i->name() + (also.empty() ? "" : " (also " + also + ")");
  }
  throw UsageError("import: unknown FORMAT '" + format + "': give auto, or one of " + names);
}

const Importer& detect_importer(const std::vector<InputFile>& files) {
  const Importer* chosen = nullptr;
  std::string chosen_by;
  for (const auto& f : files) {
    const Importer* best = nullptr;
    int score = 0;
    for (const Importer* i : all_importers()) {
      int s = i->recognizes(f);
      if (s > score) score = s, best = i;
    }
    if (!best) {
      std::string names;  // from the registry, so a new importer is named here without another edit
      for (const Importer* i : all_importers()) names += (names.empty() ? "" : ", ") + i->name();
      throw UserError(f.path + ": no importer recognises this file (give the FORMAT: one of " + names + ")");
    }
    if (chosen && chosen != best)
      throw UserError(f.path + " is a " + best->name() + " file but " + chosen_by + " is a " + chosen->name() +
                      " file: import one run of one tool at a time");
    chosen = best;
    chosen_by = f.path;
  }
  if (!chosen) throw UsageError("import: no files given");
  return *chosen;
}

}  // namespace rooflens::importers
