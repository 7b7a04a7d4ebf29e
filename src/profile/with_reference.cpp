#include "profile/with_reference.h"

#include "core/atomic_file.h"
#include "core/errors.h"
#include "lint/lint.h"
#include "profile/turns.h"

namespace rooflens {
namespace {

// The reference at its own shapes, on the same backend with the same threads, timed only (no layers).
ProfileOptions reference_options(const ProfileOptions& o, const ReferenceOptions& ref) {
  ProfileOptions r;
  r.model = ref.model;
  r.backends = o.backends;
  r.threads = o.threads;
  r.timing = o.timing;
  r.timing.layers = false;
  r.repeat = o.repeat;
  r.live_timing = o.live_timing;
  r.timeout = o.timeout;
  return r;
}

std::string reference_failure(const Report& r) {
  if (r.partial) return "interrupted";
  if (!r.failures.empty()) {
    const Failure& f = r.failures.front();
    return (f.stage.empty() ? "" : f.stage + ": ") + f.message;
  }
  return "no timed run";
}

}  // namespace

Report run_profile_with_reference(ProfileOptions o, const ReferenceOptions& ref, const std::vector<Backend*>& backends,
                                  const HardwareInfo* hw, const ProfileHooks& hooks) {
  if (o.backends.size() != 1 || expand_grid(o).size() != 1)
    throw UsageError("--reference pairs one configuration with the reference: give one -B, at most one -b value and "
                     "no --sweep (this run has " + std::to_string(o.backends.size() * expand_grid(o).size()) +
                     " configurations)");
  use_turns(o, ref.turns, ref.turn_iterations);
  const ProfileOptions r = reference_options(o, ref);
  TurnProgress progress(hooks.progress);
  ProfileDriver reference(r, backends, nullptr, progress.hooks("reference", hooks.interrupted));
  ProfileDriver model(o, backends, hw, progress.hooks("model", hooks.interrupted));
  take_turns(reference, model);
  progress.finish();
  Report rep = std::move(model.report());
  if (rep.partial || rep.runs.size() != 1) return rep;  // nothing to pair with
  const Report& rr = reference.report();
  ProfileRun& run = rep.runs.front();
  if (!rr.partial && rr.failures.empty() && rr.runs.size() == 1) {
    const ProfileRun& timed = rr.runs.front();
    run.reference = ReferenceTiming{ref.model, rr.model.name, timed.latencies_ms, timed.repetitions};
  } else {
    run.warnings.push_back("reference " + ref.model + " failed (" + reference_failure(rr) +
                           "): this run has no ratio to it");
  }
  rep.findings = lint_report(rep);
  if (!o.report_path.empty()) write_file_atomically(o.report_path, report_to_json(rep));
  return rep;
}

}  // namespace rooflens
