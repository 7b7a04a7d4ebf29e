#include "cli/compare_models.h"

#include <algorithm>
#include <filesystem>

#include "backends/registry/registry.h"
#include "cli/interrupt.h"
#include "cli/progress.h"
#include "core/atomic_file.h"
#include "profile/profile.h"
#include "profile/turns.h"

namespace rooflens::cli {

namespace {

ProfileOptions options_for(const std::string& model, const MeasureFlags& f) {
  ProfileOptions o;
  o.model = model;
  o.backends = {parse_backend_spec(f.backend)};
  if (!f.batches.empty()) o.batches = parse_int_list(f.batches, "-b");
  o.shapes = f.shape.overrides();
  o.threads = f.threads;
  o.timing.warmup_iterations = f.warmup;
  o.timing.warmup_ms = f.warmup_ms;
  o.timing.iterations = f.iterations;
  o.timing.duration_s = f.duration_s;
  o.timing.profile_iterations = f.profile_iterations;
  o.timing.layers = !f.no_layers;
  o.timing.realtime = f.realtime;
  o.repeat = f.repeat;
  if (f.interleave == "chunks") use_turns(o, f.chunks, f.chunk_iterations);
  o.timeout = std::chrono::milliseconds(static_cast<int64_t>(f.timeout_s * 1000));
  return o;
}

}  // namespace

MeasuredPair measure_pair(const std::string& base_model, const std::string& new_model, const MeasureFlags& f) {
  const ProfileOptions ob = options_for(base_model, f), on = options_for(new_model, f);
  std::unique_ptr<Backend> backend = make_backend(ob.backends.front());
  const std::vector<Backend*> backends{backend.get()};
  ProgressBar bar("compare", !f.quiet);
  Backend& b = *backend;
  InterruptWatcher watcher("rooflens compare: interrupted — stopping", [&b] { b.abort(); });
  TurnProgress progress([&bar](const std::string& what, size_t done, size_t total) { bar.update(what, done, total); });
  const ProfileHooks hb = progress.hooks("BASE", &watcher.flag()), hn = progress.hooks("NEW", &watcher.flag());
  ProfileSession base(ob, backends, nullptr, hb), head(on, backends, nullptr, hn);
  take_turns(base, head);
  progress.finish();
  MeasuredPair out{std::move(base.report()), std::move(head.report())};
  if (!f.reports.empty()) {
    std::filesystem::create_directories(f.reports);
    write_file_atomically((std::filesystem::path(f.reports) / "base.json").string(), report_to_json(out.base));
    write_file_atomically((std::filesystem::path(f.reports) / "new.json").string(), report_to_json(out.head));
  }
  return out;
}

}  // namespace rooflens::cli
