// libFuzzer target over the whole static path: wire walk, skeleton parse, shape resolution, cost analysis.
// Any input must end in a model or a UserError/UsageError — never a crash, a hang or a sanitizer report.
#include <cstddef>
#include <cstdint>

#include "analysis/cost.h"
#include "analysis/model_summary.h"
#include "core/errors.h"
#include "model/loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const rooflens::CostRegistry registry = rooflens::CostRegistry::builtin();
  try {
    rooflens::Model m = rooflens::load_model_from_bytes(data, size, "fuzz.onnx", "");
    rooflens::Analysis a = rooflens::analyze_model(m, registry);
    (void)a;
  } catch (const rooflens::UserError&) {
  } catch (const rooflens::UsageError&) {
  }
  return 0;
}
