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
