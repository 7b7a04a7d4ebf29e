#include "bench/bench_driver.h"

#include <algorithm>
#include <memory>
#include <thread>

#include "bench/entry_runner.h"
#include "core/temp_dir.h"

namespace rooflens::bench {

// One thread's servers (one per configuration) and scratch directory.
class BenchDriver::Worker {
 public:
  explicit Worker(BenchDriver& d) : d_(d), servers_(d.configs_.size()), work_("rooflens-bench") {}
  ~Worker() {
    for (auto& s : servers_)
      if (s) d_.release(s.get());
  }

  ModelServer& server(size_t c) {
    if (!servers_[c]) {
      servers_[c] = d_.configs_[c].backend->serve();
      d_.adopt(servers_[c].get());
    }
    return *servers_[c];
  }

  // The runner is started (again, after a crash) outside the model's own time; benchmark mode starts a fresh one
  // per model so its peak RSS is that model's. A runner that will not start is left to load(), which records it.
  void prepare(ModelServer& s) {
    try {
      s.start(d_.plan_.benchmarks());
    } catch (const BackendError&) {
    }
  }

  void run_model(const BenchModel& m, const FinishedKeys& finished) {
    ModelContext ctx(m);
    const size_t n = d_.configs_.size();
    for (size_t c = 0; c < n && !d_.stopped(); ++c) {
      const std::string& label = d_.configs_[c].label;
      if (finished.count({m.name, label})) continue;
      const bool needs_reference = c > 0 && m.data_sets.empty() && m.skip.empty() && d_.plan_.validates();
      if (needs_reference && !ctx.reference) compute_reference(ctx, d_.plan_, d_.configs_[0].label, server(0));
      if (c == 0) ctx.reference_tried = true;  // its outputs become the reference, or nothing will
      EntrySetup setup{d_.plan_, label, c == 0, n > 1, work_.path()};
      if (m.skip.empty()) prepare(server(c));
      BenchEntry e = run_entry(ctx, setup, server(c));
      if (d_.stopped()) return;  // killed by stop(): not this model's doing
      d_.finished_entry(e);
    }
  }

 private:
  BenchDriver& d_;
  std::vector<std::unique_ptr<ModelServer>> servers_;
  TempDir work_;
};

BenchDriver::BenchDriver(const std::vector<BenchModel>& models, std::vector<ConfigSlot> configs, BenchPlan plan,
                         std::function<void(const BenchEntry&)> record,
                         std::function<void(const BenchProgress&)> progress)
    : models_(models), configs_(std::move(configs)), plan_(std::move(plan)), record_(std::move(record)),
      progress_(std::move(progress)) {}

size_t BenchDriver::pending(const FinishedKeys& finished) const {
  size_t n = 0;
  for (const auto& m : models_)
    for (const auto& c : configs_) n += finished.count({m.name, c.label}) ? 0 : 1;
  return n;
}

void BenchDriver::run(const FinishedKeys& finished) {
  counts_ = BenchProgress{};
  counts_.total = pending(finished);
  if (progress_) progress_(counts_);
  const size_t threads = std::min<size_t>(static_cast<size_t>(plan_.runners()), std::max<size_t>(models_.size(), 1));
  std::vector<std::thread> pool;
  for (size_t i = 1; i < threads; ++i) pool.emplace_back([this, &finished] { work(finished); });
  work(finished);
  for (auto& t : pool) t.join();
  if (error_) std::rethrow_exception(error_);
}

void BenchDriver::work(const FinishedKeys& finished) {
  try {
    Worker w(*this);
    for (;;) {
      if (stopped()) return;
      size_t i = next_.fetch_add(1);
      if (i >= models_.size()) return;
      w.run_model(models_[i], finished);
    }
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = std::current_exception();
    }
    stop();
  }
}

void BenchDriver::finished_entry(const BenchEntry& e) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped()) return;
  record_(e);
  ++counts_.done;
  if (e.status == "pass") ++counts_.pass;
  else if (e.status == "fail") ++counts_.fail;
  else if (e.status == "timeout") ++counts_.timeout;
  else if (e.status == "crash") ++counts_.crash;
  else ++counts_.skip;
  counts_.last = e.model + (configs_.size() > 1 ? " [" + e.config + "]" : "");
  if (progress_) progress_(counts_);
}

void BenchDriver::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  for (ModelServer* s : live_) s->abort();
}

void BenchDriver::adopt(ModelServer* s) {
  std::lock_guard<std::mutex> lock(mu_);
  live_.push_back(s);
  if (stopped_) s->abort();
}

void BenchDriver::release(ModelServer* s) {
  std::lock_guard<std::mutex> lock(mu_);
  live_.erase(std::remove(live_.begin(), live_.end(), s), live_.end());
}

}  // namespace rooflens::bench
