#include "profile/measure_pair.h"

#include <vector>

#include "profile/turns.h"

namespace rooflens {

MeasuredPair measure_pair(const ProfileOptions& ob, const ProfileOptions& on, Backend& base_backend,
                          Backend& head_backend, const ProfileHooks& hooks) {
  TurnProgress progress(hooks.progress);
  const ProfileHooks hb = progress.hooks("BASE", hooks.interrupted), hn = progress.hooks("NEW", hooks.interrupted);
  // The drivers keep references to their backend lists: the lists outlive them.
  const std::vector<Backend*> base_backends{&base_backend}, head_backends{&head_backend};
  ProfileDriver base(ob, base_backends, nullptr, hb), head(on, head_backends, nullptr, hn);
  take_turns(base, head);
  progress.finish();
  return MeasuredPair{std::move(base.report()), std::move(head.report())};
}

}  // namespace rooflens
