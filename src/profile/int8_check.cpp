#include "profile/int8_check.h"

#include "core/errors.h"

namespace rooflens {

Int8CheckMode parse_int8_check(const std::string& text) {
  if (text == "auto") return Int8CheckMode::automatic;
  if (text == "always") return Int8CheckMode::always;
  if (text == "never") return Int8CheckMode::never;
  throw UsageError("--int8-check: '" + text + "' is not auto, always or never");
}

bool wants_int8_check(Int8CheckMode mode, const std::optional<Int8Weights>& weights, const std::vector<std::string>& isa) {
  if (mode == Int8CheckMode::never || !weights || weights->through_dequantize == 0) return false;
  if (mode == Int8CheckMode::always) return true;
  return u8s8_saturates(isa) && !weights->reduced_range();
}

Tolerance int8_check_tolerance(std::optional<double> output_step) {
  if (output_step && *output_step > 0) return Tolerance{0, 1.5 * *output_step, kInt8CheckPercentMismatch};
  return Tolerance{0.05, 0.05, kInt8CheckPercentMismatch};
}

Int8Check check_int8_outputs(Backend& backend, const RunSpec& r, const std::vector<std::string>& isa,
                             std::optional<double> output_step) {
  std::unique_ptr<LiveRunner> runner = backend.live_runner();
  if (!runner)
    throw BackendError("run", "error", "this backend cannot load a model twice in one process (no live runner)", "");
  ModelLoad load;
  load.model = r.model;
  load.name = r.model.filename().string();
  load.dims = r.feed.dims;
  load.timeout = r.timeout;
  load.threads = r.key.threads;
  runner->start(true);
  runner->load(load);
  const std::vector<TensorValue> got = runner->outputs(r.feed, r.timeout);
  load.opt_level = "disabled";
  runner->load(load);
  const std::vector<TensorValue> unoptimized = runner->outputs(r.feed, r.timeout);
  runner->unload();

  const Tolerance tol = int8_check_tolerance(output_step);
  Int8Check c;
  c.isa = isa;
  c.output_step = output_step.value_or(0);
  c.rtol = tol.rtol;
  c.atol = tol.atol;
  c.percent_mismatch = tol.percent_mismatch;
  c.validation.reference = kUnoptimizedReference;
  c.validation.data_sets = 1;
  check_outputs(unoptimized, got, tol, 0, c.validation);
  return c;
}

}  // namespace rooflens
