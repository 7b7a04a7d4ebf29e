// Fuzz target (fuzz_targets.h) over the whole static path: wire walk, skeleton parse, shape resolution, cost analysis, and
// `rooflens generate`'s decoder I/O detection (declared inputs/outputs, KV-cache layout).
// Any input must end in a model or a UserError/UsageError — never a crash, a hang or a sanitizer report.
#include <cstddef>
#include <cstdint>

#include "analysis/cost.h"
#include "analysis/model_summary.h"
#include "core/errors.h"
#include "fuzz_targets.h"
#include "generate/decoder_io.h"
#include "model/declared_io.h"
#include "model/loader.h"

int rooflens::fuzz::analyze(const uint8_t* data, size_t size) {
  static const rooflens::CostRegistry registry = rooflens::CostRegistry::builtin();
  try {
    rooflens::Model m = rooflens::load_model_from_bytes(data, size, "fuzz.onnx", "");
    rooflens::Analysis a = rooflens::analyze_model(m, registry);
    (void)a;
  } catch (const rooflens::UserError&) {
  } catch (const rooflens::UsageError&) {
  }
  try {
    rooflens::DecoderIo io =
        rooflens::detect_decoder_io(rooflens::declared_io_from_bytes(data, size, "fuzz.onnx"), "fuzz.onnx");
    (void)rooflens::step_shapes(io, 1, 1, 1);
  } catch (const rooflens::UserError&) {
  }
  return 0;
}
