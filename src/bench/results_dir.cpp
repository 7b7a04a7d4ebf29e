#include "bench/results_dir.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/results_csv.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/text_table.h"

namespace rooflens::bench {
namespace fs = std::filesystem;
namespace {

constexpr const char* kHeader = "run.json";
constexpr const char* kJournal = "entries.jsonl";
constexpr const char* kResults = "results.json";
constexpr const char* kSystem = "system.csv";

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

BenchResults header_only(const BenchResults& r) {
  BenchResults h = r;
  h.entries.clear();
  h.partial = false;
  return h;
}

std::string csv_text(const CsvFile& f, const std::vector<const BenchEntry*>& entries) {
  std::string out = csv_row(f.columns);
  for (const BenchEntry* e : entries)
    for (const auto& row : f.rows(*e)) out += csv_row(row);
  return out;
}

int64_t rounds_of(const BenchResults& r) { return std::max<int64_t>(1, r.options.repeat); }

std::string csv_lines(const CsvFile& f, const BenchEntry& e) {
  std::string out;
  for (const auto& row : f.rows(e)) out += csv_row(row);
  return out;
}

}  // namespace

std::string header_difference(const BenchResults& was, const BenchResults& now) {
  using json = nlohmann::ordered_json;
  json a = json::parse(bench_results_to_json(header_only(was)));
  json b = json::parse(bench_results_to_json(header_only(now)));
  for (const auto& [k, v] : b["options"].items()) {
    json old = a["options"].contains(k) ? a["options"][k] : json();
    if (old != v) return k + ": " + old.dump() + " then, " + v.dump() + " now";
  }
  std::vector<std::string> la, lb;
  for (const auto& c : was.configs) la.push_back(c.label);
  for (const auto& c : now.configs) lb.push_back(c.label);
  if (la != lb) return "configurations (-B): " + json(la).dump() + " then, " + json(lb).dump() + " now";
  return "";
}

ResultsDir::ResultsDir(fs::path dir, const BenchResults& header, OpenMode mode, std::chrono::milliseconds rewrite_every)
    : dir_(std::move(dir)), rewrite_every_(rewrite_every) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (!fs::is_directory(dir_, ec)) throw UserError(dir_.string() + ": cannot create the results folder");
  const bool has_run = fs::exists(dir_ / kHeader, ec);
  if (has_run && mode == OpenMode::fresh)
    throw UsageError(dir_.string() + " holds the results of an earlier run: add --resume to continue it, or "
                     "--overwrite to start again (or pick another -o)");
  if (has_run && mode == OpenMode::resume) resume(header);
  else start_fresh(header);
  open_appenders();
  last_rewrite_ = std::chrono::steady_clock::now();
}

void ResultsDir::start_fresh(const BenchResults& header) {
  results_ = header_only(header);
  std::error_code ec;
  for (const char* f : {kHeader, kJournal, kResults, kSystem}) fs::remove(dir_ / f, ec);
  write_file_atomically((dir_ / kHeader).string(), bench_results_to_json(results_));
  write_file_atomically((dir_ / kJournal).string(), "");
  write_file_atomically((dir_ / kSystem).string(), system_csv(results_));
  rewrite_csvs();
  write_results_json(true);
}

void ResultsDir::resume(const BenchResults& header) {
  BenchResults was;
  try {
    was = bench_results_from_json(slurp(dir_ / kHeader));
  } catch (const UserError& e) {
    throw UserError((dir_ / kHeader).string() + ": " + e.what() + " — cannot resume; use --overwrite");
  }
  std::string diff = header_difference(was, header);
  if (!diff.empty())
    throw UsageError(dir_.string() + " was made with different options (" + diff + "): --resume needs the same "
                     "options; use another -o, or --overwrite to start again");
  results_ = header_only(was);
  load_journal();
  for (const auto& e : results_.entries) {
    bool final = entry_is_final(e, rounds_[{e.model, e.config}], rounds_of(results_));
    (final ? earlier_count_ : earlier_unfinished_) += 1;
  }
  rewrite_csvs();
}

// Each complete line is an entry; a line cut short by a kill (no newline, or not JSON) is dropped, and the journal is
// rewritten with the good lines so later appends start on a clean line.
void ResultsDir::load_journal() {
  std::string text = slurp(dir_ / kJournal);
  std::string good;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    try {
      int64_t round = 1;
      BenchEntry e = bench_entry_from_json(line, &round);
      if (!merge(e, round)) continue;  // a round without its predecessors: not what this run wrote
      good += line + "\n";
    } catch (const UserError&) {
    }
  }
  if (good.size() != text.size()) write_file_atomically((dir_ / kJournal).string(), good);
}

bool ResultsDir::merge(const BenchEntry& e, int64_t round) {
  const EntryKey key{e.model, e.config};
  if (round == 1) {
    index_[key] = results_.entries.size();
    rounds_[key] = 1;
    results_.entries.push_back(e);
  } else {
    auto at = index_.find(key);
    if (at == index_.end() || rounds_[key] != round - 1) return false;
    BenchEntry& merged = results_.entries[at->second];
    if (entry_is_final(merged, round - 1, rounds_of(results_))) return false;
    merge_round(merged, e, round, rounds_of(results_));
    rounds_[key] = round;
  }
  ++records_;
  return true;
}

void ResultsDir::rewrite_csvs() {
  std::vector<const BenchEntry*> final;
  for (const auto& e : results_.entries)
    if (entry_is_final(e, rounds_[{e.model, e.config}], rounds_of(results_))) final.push_back(&e);
  for (const auto& f : entry_csv_files()) write_file_atomically((dir_ / f.name).string(), csv_text(f, final));
}

void ResultsDir::open_appenders() {
  journal_ = AppendFile((dir_ / kJournal).string());
  csvs_.clear();
  for (const auto& f : entry_csv_files()) csvs_.emplace_back((dir_ / f.name).string());
}

std::set<std::pair<std::string, std::string>> ResultsDir::finished_keys() const {
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto& [key, p] : progress())
    if (p.final) keys.insert(key);
  return keys;
}

EntryProgressMap ResultsDir::progress() const {
  std::lock_guard<std::mutex> lock(mu_);
  EntryProgressMap m;
  for (const auto& [key, at] : index_) {
    const BenchEntry& e = results_.entries[at];
    int64_t rounds = rounds_.at(key);
    m[key] = EntryProgress{rounds, entry_is_final(e, rounds, rounds_of(results_)), e.status};
  }
  return m;
}

void ResultsDir::record(const BenchEntry& e, int64_t round) {
  std::lock_guard<std::mutex> lock(mu_);
  // Journal first: it is what --resume trusts; the CSVs are rebuilt from it then.
  journal_.append(bench_entry_to_json_line(e, round) + "\n");
  if (!merge(e, round)) throw UserError("internal error: round " + std::to_string(round) + " of " + e.model + " [" +
                                        e.config + "] does not follow its earlier rounds");
  const EntryKey key{e.model, e.config};
  const BenchEntry& merged = results_.entries[index_.at(key)];
  if (entry_is_final(merged, rounds_.at(key), rounds_of(results_))) {
    const auto& files = entry_csv_files();
    for (size_t i = 0; i < files.size(); ++i) {
      std::string lines = csv_lines(files[i], merged);
      if (!lines.empty()) csvs_[i].append(lines);
    }
  }
  const bool grew = records_ >= last_rewrite_records_ + std::max<size_t>(1, last_rewrite_records_ / 10);
  if (grew && std::chrono::steady_clock::now() - last_rewrite_ >= rewrite_every_) write_results_json(true);
}

void ResultsDir::finish(bool partial) {
  std::lock_guard<std::mutex> lock(mu_);
  write_results_json(partial);
}

// While the run goes on the file says "partial": true, so a copy taken mid-run (or left by a kill) says so.
void ResultsDir::write_results_json(bool partial) {
  results_.partial = partial;
  write_file_atomically((dir_ / kResults).string(), bench_results_to_json(results_));
  last_rewrite_ = std::chrono::steady_clock::now();
  last_rewrite_records_ = records_;
}

BenchResults ResultsDir::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return results_;
}

}  // namespace rooflens::bench
