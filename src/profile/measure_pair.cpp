#include "profile/measure_pair.h"

#include <vector>

#include "profile/turns.h"

namespace rooflens {

MeasuredPair measure_pair(const ProfileOptions& ob, const ProfileOptions& on, Backend& base_backend,
                          Backend& head_backend, const ProfileHooks& hooks, const HardwareInfo* hw) {
  TurnProgress progress(hooks.progress);
  ProfileHooks hb = progress.hooks("BASE", hooks.interrupted), hn = progress.hooks("NEW", hooks.interrupted);
  hb.engine_roofs = hn.engine_roofs = hooks.engine_roofs;
  hb.recheck_roofs = hn.recheck_roofs = hooks.recheck_roofs;
  hb.recheck_engine_roofs = hn.recheck_engine_roofs = hooks.recheck_engine_roofs;
  // The drivers keep references to their backend lists: the lists outlive them.
  const std::vector<Backend*> base_backends{&base_backend}, head_backends{&head_backend};
  ProfileDriver base(ob, base_backends, hw, hb), head(on, head_backends, hw, hn);
  take_turns(base, head);
  progress.finish();
  return MeasuredPair{std::move(base.report()), std::move(head.report())};
}

}  // namespace rooflens
