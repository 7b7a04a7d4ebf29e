#include "cli/compare_models.h"

#include <algorithm>
#include <filesystem>

#include "backends/registry/registry.h"
#include "cli/interrupt.h"
#include "cli/progress.h"
#include "core/atomic_file.h"
#include "profile/profile.h"

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
  if (f.interleave == "chunks") {
    o.repeat = 1 + f.chunks;
    TimingOptions chunk;
    chunk.warmup_iterations = 1;
    chunk.warmup_ms = 0;
    chunk.iterations = f.chunk_iterations;
    chunk.duration_s = 0;
    chunk.layers = false;
    o.live_timing = chunk;
  }
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
  size_t done = 0, total = 0;
  auto hooks_for = [&](const char* side) {
    ProfileHooks h;
    h.interrupted = &watcher.flag();
    h.progress = [&bar, &done, &total, side](const std::string& what, size_t, size_t all) {
      total = std::max(total, 2 * all);
      if (what != "done") bar.update(std::string(side) + " " + what, done++, total);
    };
    return h;
  };
  const ProfileHooks hb = hooks_for("BASE"), hn = hooks_for("NEW");
  ProfileSession base(ob, backends, nullptr, hb), head(on, backends, nullptr, hn);
  // ABBA: pair k runs BASE first when k is even, NEW first when odd, so neither side is always the one that
  // follows the other (a warm cache, a hot CPU).
  for (size_t k = 0;; ++k) {
    ProfileSession& first = k % 2 == 0 ? base : head;
    ProfileSession& second = k % 2 == 0 ? head : base;
    bool ran_first = first.step();
    bool ran_second = second.step();
    if (!ran_first && !ran_second) break;
  }
  bar.update("done", total, total);
  MeasuredPair out{std::move(base.report()), std::move(head.report())};
  if (!f.reports.empty()) {
    std::filesystem::create_directories(f.reports);
    write_file_atomically((std::filesystem::path(f.reports) / "base.json").string(), report_to_json(out.base));
    write_file_atomically((std::filesystem::path(f.reports) / "new.json").string(), report_to_json(out.head));
  }
  return out;
}

}  // namespace rooflens::cli
