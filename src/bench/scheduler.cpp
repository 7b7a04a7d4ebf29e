#include "bench/scheduler.h"

#include <algorithm>
#include <memory>
#include <thread>

#include "backends/fault_injection.h"
#include "core/temp_dir.h"
#include "bench/entry.h"

namespace rooflens::bench {

// One thread's live runners (one per configuration) and scratch directory.
class SuiteScheduler::Worker {
 public:
  explicit Worker(SuiteScheduler& d) : d_(d), runners_(d.configs_.size()), work_("rooflens-bench") {}
  ~Worker() {
    for (auto& s : runners_)
      if (s) d_.release(s.get());
  }

  LiveRunner& runner(size_t c) {
    if (!runners_[c]) {
      runners_[c] = d_.configs_[c].backend->live_runner();
      if (!runners_[c])
        throw UsageError("-B " + d_.configs_[c].label + ": this backend cannot serve a zoo of models");
      if (!d_.plan_.test_faults.empty())
        runners_[c] = with_injected_faults(std::move(runners_[c]), d_.plan_.test_faults);
      d_.adopt(runners_[c].get());
    }
    return *runners_[c];
  }

  // The runner is started (again, after a crash) outside the model's own time; benchmark mode starts a fresh one
  // per model so its peak RSS is that model's. A runner that will not start is left to load(), which records it.
  void prepare(LiveRunner& s) {
    try {
      s.start(d_.plan_.benchmarks());
    } catch (const BackendError&) {
    }
  }

  // Round `round` of every configuration of one model: what is still to run of it (an entry runs round R
  // only after round R - 1 passed; a resumed run skips the rounds the journal has).
  void run_model(const BenchModel& m, int64_t round) {
    ModelContext ctx(m);
    const size_t n = d_.configs_.size();
    for (size_t c = 0; c < n && !d_.stopped(); ++c) {
      const std::string& label = d_.configs_[c].label;
      EntryProgress state = d_.state_of({m.name, label});
      if (state.final || state.rounds != round - 1) continue;
      if (round == 1) {
        const bool needs_reference = c > 0 && m.data_sets.empty() && m.skip.empty() && d_.plan_.validates();
        if (needs_reference && !ctx.reference) compute_reference(ctx, d_.plan_, d_.configs_[0].label, runner(0));
        if (c == 0) ctx.reference_tried = true;  // its outputs become the reference, or nothing will
      }
      EntrySetup setup{d_.plan_, label, c == 0, n > 1, work_.path(), round};
      if (m.skip.empty()) prepare(runner(c));
      BenchEntry e = run_entry(ctx, setup, runner(c));
      if (d_.stopped()) return;  // killed by stop(): not this model's doing
      d_.finished_entry(e, round);
    }
  }

 private:
  SuiteScheduler& d_;
  std::vector<std::unique_ptr<LiveRunner>> runners_;
  TempDir work_;
};

SuiteScheduler::SuiteScheduler(const std::vector<BenchModel>& models, std::vector<ConfigSlot> configs, BenchPlan plan,
                         std::function<void(const BenchEntry&, int64_t)> record,
                         std::function<void(const BenchProgress&)> progress)
    : models_(models), configs_(std::move(configs)), plan_(std::move(plan)), record_(std::move(record)),
      progress_(std::move(progress)) {}

size_t SuiteScheduler::pending(const EntryProgressMap& earlier) const {
  size_t n = 0;
  for (const auto& m : models_)
    for (const auto& c : configs_) {
      auto it = earlier.find({m.name, c.label});
      if (it == earlier.end()) n += static_cast<size_t>(rounds());
      else if (!it->second.final) n += static_cast<size_t>(std::max<int64_t>(0, rounds() - it->second.rounds));
    }
  return n;
}

void SuiteScheduler::run(const EntryProgressMap& earlier) {
  state_ = earlier;
  counts_ = BenchProgress{};
  counts_.total = pending(earlier);
  if (progress_) progress_(counts_);
  // Rounds follow each other (a model's round R needs its round R - 1), so repeated timing runs on one worker;
  // timing already does (BenchPlan::runners), --repeat being for benchmark modes only.
  const size_t workers = rounds() > 1 ? 1 : static_cast<size_t>(plan_.workers());
  const size_t threads = std::min<size_t>(workers, std::max<size_t>(models_.size(), 1));
  std::vector<std::thread> pool;
  for (size_t i = 1; i < threads; ++i) pool.emplace_back([this] { work(); });
  work();
  for (auto& t : pool) t.join();
  if (error_) std::rethrow_exception(error_);
}

void SuiteScheduler::work() {
  try {
    Worker w(*this);
    const size_t total = models_.size() * static_cast<size_t>(rounds());
    for (;;) {
      if (stopped()) return;
      size_t i = next_.fetch_add(1);
      if (i >= total) return;
      w.run_model(models_[i % models_.size()], static_cast<int64_t>(i / models_.size()) + 1);
    }
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = std::current_exception();
    }
    stop();
  }
}

EntryProgress SuiteScheduler::state_of(const EntryKey& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = state_.find(key);
  return it == state_.end() ? EntryProgress{} : it->second;
}

namespace {

size_t& count_of(BenchProgress& p, const std::string& status) {
  if (status == "pass") return p.pass;
  if (status == "fail") return p.fail;
  if (status == "timeout") return p.timeout;
  if (status == "crash") return p.crash;
  return p.skip;
}

}  // namespace

void SuiteScheduler::finished_entry(const BenchEntry& e, int64_t round) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped()) return;
  record_(e, round);
  const EntryKey key{e.model, e.config};
  EntryProgress& state = state_[key];
  // An entry counts once, by its status so far: a later round that fails moves it from pass to that status.
  if (counted_.insert(key).second) {
    ++count_of(counts_, e.status);
  } else if (state.status != e.status) {
    --count_of(counts_, state.status);
    ++count_of(counts_, e.status);
  }
  state.rounds = round;
  state.status = e.status;
  state.final = e.status != "pass" || round >= rounds();
  ++counts_.done;
  if (e.status != "pass") counts_.total -= static_cast<size_t>(rounds() - round);  // its later rounds will not run
  counts_.last = e.model + (configs_.size() > 1 ? " [" + e.config + "]" : "") +
                 (rounds() > 1 ? " (round " + std::to_string(round) + "/" + std::to_string(rounds()) + ")" : "");
  if (progress_) progress_(counts_);
}

void SuiteScheduler::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  for (LiveRunner* s : live_) s->abort();
}

void SuiteScheduler::adopt(LiveRunner* s) {
  std::lock_guard<std::mutex> lock(mu_);
  live_.push_back(s);
  if (stopped_) s->abort();
}

void SuiteScheduler::release(LiveRunner* s) {
  std::lock_guard<std::mutex> lock(mu_);
  live_.erase(std::remove(live_.begin(), live_.end(), s), live_.end());
}

}  // namespace rooflens::bench
