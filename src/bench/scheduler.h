#pragma once
// The scheduler of `rooflens bench`: worker threads, each with its own live runners (one runner process per
// configuration, started on first use and restarted only after a crash or timeout), take models in order and
// run every configuration of a model in turn (so the first configuration's outputs can be the reference of the
// others). With --repeat N the models are taken N times over, round after round (round-robin: a model's runs
// are spread over the whole run), each later round timing the entries that passed so far. Finished rounds go to
// a callback, serialized. stop() ends the run at once: runners are killed and entries in flight are dropped,
// never recorded as crashes — a resumed run does them again.
#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "bench/plan.h"
#include "bench/model_source.h"
#include "bench/rounds.h"
#include "core/bench_results.h"

namespace rooflens::bench {

struct ConfigSlot {
  std::string label;     // as given to -B
  Backend* backend;      // not owned
};

struct BenchProgress {
  size_t done = 0, total = 0;  // runs (model × configuration × round) of this run; total shrinks when an entry
                               // fails before its last round
  size_t pass = 0, fail = 0, timeout = 0, crash = 0, skip = 0;  // entries, by their status so far
  std::string last;            // "model [config]" just finished
};

using FinishedKeys = std::set<std::pair<std::string, std::string>>;  // (model, config)

class SuiteScheduler {
 public:
  SuiteScheduler(const std::vector<BenchModel>& models, std::vector<ConfigSlot> configs, BenchPlan plan,
              std::function<void(const BenchEntry&, int64_t round)> record,
              std::function<void(const BenchProgress&)> progress);

  // Runs still to do: every round of an entry not in `earlier`, the remaining rounds of one that is not final.
  size_t pending(const EntryProgressMap& earlier) const;
  // Runs them; returns when all are done or after stop(). An error of rooflens itself (e.g. the results folder
  // became unwritable) stops the run and is rethrown here.
  void run(const EntryProgressMap& earlier);
  void stop();  // any thread
  bool stopped() const { return stopped_.load(); }

 private:
  class Worker;
  void work();
  int64_t rounds() const { return std::max(1, plan_.repeat); }
  EntryProgress state_of(const EntryKey& key);
  void finished_entry(const BenchEntry& e, int64_t round);
  void adopt(LiveRunner* s);
  void release(LiveRunner* s);

  const std::vector<BenchModel>& models_;
  std::vector<ConfigSlot> configs_;
  BenchPlan plan_;
  std::function<void(const BenchEntry&, int64_t)> record_;
  std::function<void(const BenchProgress&)> progress_;
  std::atomic<size_t> next_{0};         // rounds × models: (round - 1) * models + model
  std::atomic<bool> stopped_{false};
  std::mutex mu_;                       // guards live_ and progress, serializes record_
  std::vector<LiveRunner*> live_;       // every live runner of every worker, for stop()
  BenchProgress counts_;
  EntryProgressMap state_;              // every entry's rounds and status, earlier runs included (guarded by mu_)
  std::set<EntryKey> counted_;          // entries in counts_ (guarded by mu_)
  std::exception_ptr error_;            // first exception of a worker thread
};

}  // namespace rooflens::bench
