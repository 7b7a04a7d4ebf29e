// `rooflens top` and `rooflens export` on a real profile report: squeezenet (64x64) profiled on the real
// ONNX Runtime, then read back by the binary. Exit codes and one output of each kind.
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/onnxruntime/ort_runner.h"
#include "core/errors.h"
#include "support/cli_runner.h"
#include "support/ort_suite.h"
#include "zoo/registry.h"
#include "zoo/save.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens;
using namespace rooflens::testing;

namespace {


class TopExportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fresh_test_dir("rooflens-top-export-test"));
    ok_ = ort_runner_available();
    if (!ok_) return;
    zoo::ZooOptions sq;
    sq.image = 64;
    save_zoo_model("squeezenet1_0", sq, path("squeezenet1_0.onnx"));
    auto r = run_cli("profile " + path("squeezenet1_0.onnx") + kQuickProfile + "--no-roofs -b 1,2 -o " + path("report.json"), *dir_);
    profiled_ = r.rc == 0;
    profile_log_ = r.err + r.out;
    run_cli("analyze " + path("squeezenet1_0.onnx") + " --format json -o " + path("analyze.json"), *dir_);
  }
  static void TearDownTestSuite() {
    if (!getenv("KEEP")) fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    if (!ok_) GTEST_SKIP() << "onnxruntime-node is not installed: run `make deps`";
    ASSERT_TRUE(profiled_) << profile_log_;
  }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }
  static CliResult cli(const std::string& args) { return run_cli(args, *dir_); }
  static std::string report() { return path("report.json"); }

  static inline fs::path* dir_ = nullptr;
  static inline bool ok_ = false, profiled_ = false;
  static inline std::string profile_log_;
};

TEST_F(TopExportTest, TopTableJsonCsvOnARealProfile) {
  auto r = cli("top " + report());
  ASSERT_EQ(r.rc, 0) << r.err;
  // Key column as wide as the longest key ("findings" when lint found something).
  EXPECT_TRUE(std::regex_search(r.out, std::regex("(^|\n)model +squeezenet1_0\n"))) << r.out;
  EXPECT_NE(r.out.find("1 of 2: batch=1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(10 of "), std::string::npos) << r.out;

  r = cli("top " + report() + " --format json --batch 2 --top 0");
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  json rep = json::parse(slurp(report()));
  EXPECT_EQ(j["summary"]["run"]["batch"], 2);
  ASSERT_EQ(j["rows"].size(), rep["runs"][1]["layers"].size());
  for (size_t i = 1; i < j["rows"].size(); ++i)
    EXPECT_GE(j["rows"][i - 1]["time_ms"].get<double>(), j["rows"][i]["time_ms"].get<double>());
  EXPECT_NEAR(j["rows"].back()["cumulative"].get<double>(), 1.0, 1e-9);

  r = cli("top " + report() + " --aggregate-by type --aggregate mean --format csv --top 0");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("rank,time_ms,share,cumulative,op,layers,", 0), 0u) << r.out;
  std::set<std::string> ops;
  for (const auto& l : rep["runs"][0]["layers"]) ops.insert(l["op"].get<std::string>());
  size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  EXPECT_EQ(lines, ops.size() + 1) << r.out;

  r = cli("top " + report() + " --type Conv --name expand3x3 --order-by +time --min-time 0 --print-only layers "
          "--format md");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("| # | ms |", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("expand3x3"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("expand1x1"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("MaxPool"), std::string::npos) << r.out;
}

TEST_F(TopExportTest, TopRefusesBadInputWithOneLine) {
  auto r = cli("top " + path("analyze.json"));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err_lines(), 1) << r.err;
  EXPECT_NE(r.err.find("not a profile report"), std::string::npos) << r.err;
  r = cli("top " + path("missing.json"));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err_lines(), 1) << r.err;

  for (const auto& [args, flag] : std::vector<std::pair<std::string, std::string>>{
           {"--order-by latency", "--order-by"},
           {"--name '('", "--name"},
           {"--batch 99", "--batch"},
           {"--aggregate max", "--aggregate"},
           {"--format xml", "--format"},
           {"--min-time 3 --max-time 1", "--min-time"}}) {
    r = cli("top " + report() + " " + args);
    EXPECT_EQ(r.rc, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << ": " << r.err;
  }
}

TEST_F(TopExportTest, ExportCsvMdTraceToFiles) {
  json rep = json::parse(slurp(report()));
  size_t layers = rep["runs"][0]["layers"].size() + rep["runs"][1]["layers"].size();

  auto r = cli("export " + report() + " --to csv -o " + path("layers.csv"));
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string csv = slurp(path("layers.csv"));
  EXPECT_EQ(csv.rfind("run,batch,threads,dim:batch,index,name,op,", 0), 0u) << csv.substr(0, 200);
  size_t lines = 0;
  for (char c : csv) lines += c == '\n';
  EXPECT_EQ(lines, layers + 1);

  r = cli("export " + report() + " --to csv --what e2e -o " + path("e2e.csv"));
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string e2e = slurp(path("e2e.csv"));
  EXPECT_NE(e2e.find("\n1,1,2,1,ok,"), std::string::npos) << e2e;
  EXPECT_NE(e2e.find("\n2,2,2,2,ok,"), std::string::npos) << e2e;

  r = cli("export " + report() + " --to md -o " + path("comment.md"));
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string md = slurp(path("comment.md"));
  EXPECT_EQ(md.rfind("## rooflens profile: `squeezenet1_0`", 0), 0u) << md;
  EXPECT_NE(md.find("### Top 10 layers, `batch=1 threads=2`"), std::string::npos) << md;
  EXPECT_NE(md.find("<details><summary>Top 10 layers, batch=2 threads=2</summary>"), std::string::npos) << md;

  r = cli("export " + report() + " --to trace -o " + path("trace.json"));
  ASSERT_EQ(r.rc, 0) << r.err;
  json trace = json::parse(slurp(path("trace.json")));
  size_t complete = 0;
  std::map<int, double> end_of;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++complete;
    int tid = e["tid"].get<int>();
    EXPECT_GE(e["ts"].get<double>(), end_of[tid] - 1e-6) << e.dump();
    end_of[tid] = e["ts"].get<double>() + e["dur"].get<double>();
  }
  EXPECT_EQ(complete, layers);
  EXPECT_EQ(end_of.size(), 2u);

  r = cli("export " + report() + " --to md");  // stdout by default
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out, md);
}

TEST_F(TopExportTest, ExportRefusesBadInput) {
  auto r = cli("export " + path("analyze.json") + " --to csv -o " + path("x.csv"));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err_lines(), 1) << r.err;
  EXPECT_FALSE(fs::exists(path("x.csv")));
  r = cli("export " + report() + " --to xml");
  EXPECT_EQ(r.rc, 2);
  r = cli("export " + report() + " --to md --what e2e");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--what"), std::string::npos) << r.err;
  r = cli("export " + report());
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--to"), std::string::npos) << r.err;
  r = cli("export " + report() + " --to csv -o " + path("no/such/dir/x.csv"));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err_lines(), 1) << r.err;
}

}  // namespace
