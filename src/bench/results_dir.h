#pragma once
// The results directory of `rooflens bench`, written as the run goes so that a killed run keeps everything that
// finished:
//   run.json       the run's header (options, configurations, machine) — written once, atomically
//   entries.jsonl  journal: one finished entry per line, appended with a single write each; with --repeat, one
//                  line per finished round of an entry (rounds after the first carry "round": R and their own
//                  samples only; rounds.h merges them)
//   status.csv failures.csv latency.csv metrics.csv   one line (or a few) per finished entry, appended likewise
//                  once the entry is final (all its rounds ran, or one did not pass)
//   system.csv     machine and runtime, written once
//   results.json   the whole BenchResults (rooflens.bench/1), rewritten atomically at the end and, while the run
//                  goes on ("partial": true), when both `rewrite_every` passed and the entries grew by a tenth —
//                  so the rewrites of a long run cost O(n) in total, not O(n²); the journal has every entry anyway
// Resuming reads the journal (a torn last line from a kill is dropped), refuses a header made with different
// options, rewrites the CSVs from the journal (so they hold exactly the journal's final entries) and appends from
// there; entries with rounds still to run continue with their next round.
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bench/append_file.h"
#include "bench/rounds.h"
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

  // How many entries an earlier run of this directory finished (resume), and how many it left with rounds to go.
  size_t earlier_count() const { return earlier_count_; }
  size_t earlier_unfinished() const { return earlier_unfinished_; }
  std::set<std::pair<std::string, std::string>> finished_keys() const;  // (model, config) of final entries
  EntryProgressMap progress() const;                                    // every journaled entry

  // Records a finished round of an entry (round 1: the entry itself): journal line, the merged entry, its CSV
  // lines once it is final, and results.json when it is due. Thread-safe.
  void record(const BenchEntry& e, int64_t round = 1);
  // Final results.json (partial: the run stopped before every entry finished).
  void finish(bool partial);

  BenchResults snapshot() const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  void start_fresh(const BenchResults& header);
  void resume(const BenchResults& header);
  void load_journal();
  bool merge(const BenchEntry& e, int64_t round);  // false: a round that does not follow the entry's last one
  void rewrite_csvs();
  void open_appenders();
  void write_results_json(bool partial);

  std::filesystem::path dir_;
  std::chrono::milliseconds rewrite_every_;
  mutable std::mutex mu_;
  BenchResults results_;                 // entries merged over their rounds, in the order they first appeared
  std::map<EntryKey, size_t> index_;     // entry -> its position in results_.entries (the latest, for duplicates)
  std::map<EntryKey, int64_t> rounds_;   // entry -> rounds merged
  size_t records_ = 0;                   // journal lines (rounds) so far
  size_t earlier_count_ = 0, earlier_unfinished_ = 0;
  AppendFile journal_;
  std::vector<AppendFile> csvs_;  // parallel to entry_csv_files()
  std::chrono::steady_clock::time_point last_rewrite_;
  size_t last_rewrite_records_ = 0;
};

// The first option that differs between two headers ("mode: validate vs benchmark"), "" when they match.
std::string header_difference(const BenchResults& was, const BenchResults& now);

}  // namespace rooflens::bench
