#pragma once
// The results directory of `rooflens bench`, written as the run goes so that a killed run keeps everything that
// finished:
//   run.json       the run's header (options, configurations, machine) — written once, atomically
//   entries.jsonl  journal: one finished entry per line, appended with a single write each
//   status.csv failures.csv latency.csv metrics.csv   one line (or a few) per finished entry, appended likewise
//   system.csv     machine and runtime, written once
//   results.json   the whole BenchResults (rooflens.bench/1), rewritten atomically at the end and, while the run
//                  goes on ("partial": true), when both `rewrite_every` passed and the entries grew by a tenth —
//                  so the rewrites of a long run cost O(n) in total, not O(n²); the journal has every entry anyway
// Resuming reads the journal (a torn last line from a kill is dropped), refuses a header made with different
// options, rewrites the CSVs from the journal (so they hold exactly the journal's entries) and appends from there.
#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bench/append_file.h"
#include "core/bench_results.h"

namespace rooflens::bench {

enum class OpenMode { fresh, resume, overwrite };

class ResultsDir {
 public:
  // `header`: everything but entries. fresh refuses a folder that already holds a run (UsageError naming
  // --resume and --overwrite); resume continues one made with the same options (UsageError otherwise) or starts
  // a fresh one when there is none; overwrite replaces an earlier run's files. Throws UserError on I/O errors.
  ResultsDir(std::filesystem::path dir, const BenchResults& header, OpenMode mode,
             std::chrono::milliseconds rewrite_every = std::chrono::seconds(5));

  // How many entries an earlier run of this directory finished (resume).
  size_t earlier_count() const { return earlier_count_; }
  std::set<std::pair<std::string, std::string>> finished_keys() const;  // (model, config)

  // Records a finished entry: journal line, CSV lines, and results.json when it is due. Thread-safe.
  void record(const BenchEntry& e);
  // Final results.json (partial: the run stopped before every entry finished).
  void finish(bool partial);

  BenchResults snapshot() const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  void start_fresh(const BenchResults& header);
  void resume(const BenchResults& header);
  void load_journal();
  void rewrite_csvs();
  void open_appenders();
  void write_results_json(bool partial);

  std::filesystem::path dir_;
  std::chrono::milliseconds rewrite_every_;
  mutable std::mutex mu_;
  BenchResults results_;
  size_t earlier_count_ = 0;
  AppendFile journal_;
  std::vector<AppendFile> csvs_;  // parallel to entry_csv_files()
  std::chrono::steady_clock::time_point last_rewrite_;
  size_t last_rewrite_entries_ = 0;
};

// The first option that differs between two headers ("mode: validate vs benchmark"), "" when they match.
std::string header_difference(const BenchResults& was, const BenchResults& now);

}  // namespace rooflens::bench
