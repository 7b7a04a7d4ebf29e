// The results folder of `rooflens bench`: CSV lines appended per entry with correct quoting, a journal that
// survives a torn last line, --resume that keeps exactly what finished and refuses other options, and results.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/results_csv.h"
#include "bench/results_dir.h"
#include "core/errors.h"
#include "core/stats.h"

namespace fs = std::filesystem;
using namespace rooflens;
using namespace rooflens::bench;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

BenchResults header(const std::string& mode = "validate") {
  BenchResults h;
  h.tool.version = "0.1.0";
  h.tool.command = "bench";
  h.options.mode = mode;
  h.options.rtol = 1e-3;
  h.options.sources = {"/data/node"};
  BenchConfig c;
  c.label = "onnxruntime";
  c.backend.runtime = "onnxruntime-node 1.30.0";
  h.configs.push_back(c);
  MachineDesc m;
  m.model = "Some, \"quoted\" CPU";
  m.cores = 2;
  h.system = m;
  return h;
}

BenchEntry entry(const std::string& model, const std::string& status) {
  BenchEntry e;
  e.model = model;
  e.config = "onnxruntime";
  e.status = status;
  if (status != "pass") {
    e.stage = "load";
    e.error_type = "ort:no-kernel";
    e.message = "Could not find an implementation for BitShift(11), node \"x\"";
  }
  e.wall_s = 0.25;
  return e;
}

class BenchResultsDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rooflens-results-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

}  // namespace

TEST_F(BenchResultsDir, AppendsOneCsvLinePerEntryWithQuoting) {
  {
    ResultsDir r(dir_, header(), OpenMode::fresh);
    r.record(entry("test_abs", "pass"));
    r.record(entry("test_bitshift", "fail"));
    BenchEntry timed = entry("test_add", "pass");
    timed.latency_ms.n = 3;
    timed.latency_ms.median = 0.5;
    timed.throughput_per_s = 2000;
    BenchMetrics m;
    m.model_nodes = 4;
    m.kernels = 2;
    m.fused_ratio = 0.5;
    m.providers = {{"CPUExecutionProvider", 2, 0.4, 1.0}};
    timed.metrics = m;
    r.record(timed);
    r.finish(false);
  }
  std::string status = slurp(dir_ / "status.csv");
  EXPECT_EQ(lines(status), 4u);
  EXPECT_EQ(status.substr(0, status.find('\n')), "model,config,status,stage,error_type,wall_s,message");
  EXPECT_NE(status.find("test_abs,onnxruntime,pass,,,0.25,\n"), std::string::npos) << status;
  // Commas and quotes in messages are quoted as RFC 4180 says.
  EXPECT_NE(status.find("\"Could not find an implementation for BitShift(11), node \"\"x\"\"\""), std::string::npos);
  std::string failures = slurp(dir_ / "failures.csv");
  EXPECT_EQ(lines(failures), 2u);  // header + the one failure
  EXPECT_NE(failures.find("test_bitshift,onnxruntime,fail,load,ort:no-kernel,"), std::string::npos);
  EXPECT_EQ(lines(slurp(dir_ / "latency.csv")), 2u);
  EXPECT_NE(slurp(dir_ / "metrics.csv").find("test_add,onnxruntime,4,2,0.5,CPUExecutionProvider,2,0.4,1"),
            std::string::npos);
  std::string system = slurp(dir_ / "system.csv");
  EXPECT_NE(system.find("cpu,\"Some, \"\"quoted\"\" CPU\""), std::string::npos) << system;
  BenchResults all = bench_results_from_json(slurp(dir_ / "results.json"));
  EXPECT_EQ(all.entries.size(), 3u);
  EXPECT_FALSE(all.partial);
  EXPECT_EQ(lines(slurp(dir_ / "entries.jsonl")), 3u);
}

TEST_F(BenchResultsDir, AFreshRunRefusesAFolderWithResults) {
  { ResultsDir r(dir_, header(), OpenMode::fresh); }
  try {
    ResultsDir again(dir_, header(), OpenMode::fresh);
    FAIL();
  } catch (const UsageError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("--resume"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--overwrite"), std::string::npos) << msg;
  }
  ResultsDir over(dir_, header(), OpenMode::overwrite);
  EXPECT_EQ(over.earlier_count(), 0u);
}

TEST_F(BenchResultsDir, ResumeKeepsWhatFinishedAndDropsATornLine) {
  {
    ResultsDir r(dir_, header(), OpenMode::fresh);
    r.record(entry("a", "pass"));
    r.record(entry("b", "fail"));
    // A kill: no finish(), and half a journal line plus a stray CSV line nobody journaled.
  }
  std::ofstream(dir_ / "entries.jsonl", std::ios::app) << R"({"model": "c", "config": "onnxr)";
  std::ofstream(dir_ / "status.csv", std::ios::app) << "c,onnxruntime,pass,,,0.1,\n";
  BenchResults partial = bench_results_from_json(slurp(dir_ / "results.json"));
  EXPECT_TRUE(partial.partial);  // written before any finish(): says it is not the whole run

  ResultsDir r(dir_, header(), OpenMode::resume);
  EXPECT_EQ(r.earlier_count(), 2u);
  auto keys = r.finished_keys();
  EXPECT_TRUE(keys.count({"a", "onnxruntime"}));
  EXPECT_TRUE(keys.count({"b", "onnxruntime"}));
  EXPECT_FALSE(keys.count({"c", "onnxruntime"}));
  // The CSVs hold exactly the journal's entries again; the journal ends on a whole line.
  EXPECT_EQ(lines(slurp(dir_ / "status.csv")), 3u);
  EXPECT_EQ(slurp(dir_ / "status.csv").find("\nc,"), std::string::npos);
  EXPECT_EQ(lines(slurp(dir_ / "failures.csv")), 2u);
  r.record(entry("c", "pass"));
  r.finish(false);
  std::string journal = slurp(dir_ / "entries.jsonl");
  EXPECT_EQ(lines(journal), 3u);
  EXPECT_EQ(bench_results_from_json(slurp(dir_ / "results.json")).entries.size(), 3u);
}

TEST_F(BenchResultsDir, ResumeRefusesOtherOptionsNamingTheDifference) {
  { ResultsDir r(dir_, header("validate"), OpenMode::fresh); }
  try {
    ResultsDir r(dir_, header("benchmark"), OpenMode::resume);
    FAIL();
  } catch (const UsageError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("different options (mode: \"validate\" then, \"benchmark\" now)"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
  BenchResults other = header();
  other.configs[0].label = "onnxruntime:opt=disabled";
  EXPECT_NE(header_difference(header(), other).find("configurations"), std::string::npos);
  BenchResults other_machine = header();
  other_machine.system->cores = 64;  // the machine is described, not an option
  EXPECT_EQ(header_difference(header(), other_machine), "");
  // Nothing to resume: a resumed run in an empty folder simply starts.
  fs::remove_all(dir_);
  ResultsDir fresh(dir_, header("benchmark"), OpenMode::resume);
  EXPECT_EQ(fresh.earlier_count(), 0u);
}

// results.json is not rewritten per entry (O(n²) bytes over a long run) but stays within a tenth of the journal.
TEST_F(BenchResultsDir, ResultsJsonIsRewrittenAsEntriesGrowByATenth) {
  ResultsDir r(dir_, header(), OpenMode::fresh, std::chrono::milliseconds(0));
  for (int i = 0; i < 100; ++i) r.record(entry("m" + std::to_string(i), "pass"));
  size_t n = bench_results_from_json(slurp(dir_ / "results.json")).entries.size();
  EXPECT_GE(n, 90u);
  EXPECT_LT(n, 100u);
  EXPECT_EQ(lines(slurp(dir_ / "entries.jsonl")), 100u);
  r.finish(false);
  EXPECT_EQ(bench_results_from_json(slurp(dir_ / "results.json")).entries.size(), 100u);
}

// --repeat 3: each round of an entry is one journal line; the entry is the merge of its rounds; it reaches the
// CSVs once final (all rounds, or a round that did not pass); a killed run resumes exactly at the next round.
TEST_F(BenchResultsDir, RoundsAreJournaledOneByOneAndResumeContinuesMidEntry) {
  BenchResults h = header("benchmark");
  h.options.repeat = 3;
  auto timed = [](const std::string& model, std::vector<double> samples, double throughput) {
    BenchEntry e = entry(model, "pass");
    e.latencies_ms = std::move(samples);
    e.repetitions = {static_cast<int64_t>(e.latencies_ms.size())};
    e.latency_ms = summarize(e.latencies_ms);
    e.throughput_per_s = throughput;
    e.peak_rss_bytes = 100;
    return e;
  };
  {
    ResultsDir r(dir_, h, OpenMode::fresh, std::chrono::milliseconds(0));
    r.record(timed("a", {1.0, 1.1}, 10), 1);   // 0.2 s timed
    r.record(entry("b", "fail"), 1);            // final at once: no later rounds
    r.record(timed("c", {5.0}, 2), 1);
    BenchEntry later = timed("a", {1.2}, 5);    // 0.2 s timed
    later.peak_rss_bytes = 300;
    r.record(later, 2);
    BenchEntry crashed = entry("c", "crash");
    crashed.message = "runner killed by SIGSEGV";
    r.record(crashed, 2);                       // c fails in round 2: final, a crash
    // killed here: a has 2 of 3 rounds
  }
  EXPECT_EQ(lines(slurp(dir_ / "entries.jsonl")), 5u);
  std::string status = slurp(dir_ / "status.csv");
  EXPECT_EQ(lines(status), 3u) << status;  // header, b, c: a is not final yet
  EXPECT_EQ(status.find("\na,"), std::string::npos) << status;
  EXPECT_NE(status.find("c,onnxruntime,crash,load,ort:no-kernel,"), std::string::npos) << status;
  EXPECT_EQ(lines(slurp(dir_ / "latency.csv")), 1u);  // c crashed, a unfinished: no latency rows yet

  // A line for a round that cannot follow (a's round 4 before its round 3) is not what the run wrote: dropped.
  std::ofstream(dir_ / "entries.jsonl", std::ios::app) << bench_entry_to_json_line(timed("a", {9.9}, 1), 4) << "\n";
  ResultsDir r(dir_, h, OpenMode::resume, std::chrono::milliseconds(0));
  EXPECT_EQ(r.earlier_count(), 2u);       // b, c
  EXPECT_EQ(r.earlier_unfinished(), 1u);  // a
  EXPECT_EQ(lines(slurp(dir_ / "entries.jsonl")), 5u);
  EntryProgressMap p = r.progress();
  EXPECT_EQ(p.at({"a", "onnxruntime"}).rounds, 2);
  EXPECT_FALSE(p.at({"a", "onnxruntime"}).final);
  EXPECT_TRUE(p.at({"c", "onnxruntime"}).final);
  EXPECT_EQ(r.finished_keys().size(), 2u);
  r.record(timed("a", {1.3, 1.4}, 20), 3);  // 0.1 s timed
  r.finish(false);

  BenchResults all = bench_results_from_json(slurp(dir_ / "results.json"));
  ASSERT_EQ(all.entries.size(), 3u);
  const BenchEntry& a = all.entries[0];
  EXPECT_EQ(a.latencies_ms, (std::vector<double>{1.0, 1.1, 1.2, 1.3, 1.4}));
  EXPECT_EQ(a.repetitions, (std::vector<int64_t>{2, 1, 2}));
  EXPECT_EQ(a.latency_ms.n, 5);
  EXPECT_DOUBLE_EQ(a.latency_ms.median, 1.2);
  EXPECT_DOUBLE_EQ(a.throughput_per_s, 5 / 0.5);   // all samples over all timed time
  EXPECT_EQ(a.peak_rss_bytes, 300u);              // the highest round
  EXPECT_DOUBLE_EQ(a.wall_s, 0.75);               // 0.25 per round
  const BenchEntry& c = all.entries[2];
  EXPECT_EQ(c.status, "crash");
  EXPECT_EQ(c.message, "round 2 of 3: runner killed by SIGSEGV");
  EXPECT_EQ(c.latencies_ms, (std::vector<double>{5.0}));  // the round that finished is kept
  EXPECT_EQ(lines(slurp(dir_ / "status.csv")), 4u);
  EXPECT_EQ(lines(slurp(dir_ / "latency.csv")), 2u);  // a, now final
  EXPECT_EQ(lines(slurp(dir_ / "entries.jsonl")), 6u);
}

TEST(BenchCsv, FailureRowsOnlyForFailuresAndLatencyOnlyWhenTimed) {
  const auto& files = entry_csv_files();
  ASSERT_EQ(files.size(), 4u);
  BenchEntry skip = entry("s", "skip");
  EXPECT_TRUE(files[1].rows(skip).empty());
  EXPECT_EQ(files[0].rows(skip).size(), 1u);
  BenchEntry crash = entry("c", "crash");
  EXPECT_EQ(files[1].rows(crash).size(), 1u);
  EXPECT_TRUE(files[2].rows(crash).empty());
  for (const auto& f : files)
    for (const auto& row : f.rows(crash)) EXPECT_EQ(row.size(), f.columns.size()) << f.name;
}
