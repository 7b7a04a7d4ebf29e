// `rooflens report` through the real binary: where the page goes, and one-line errors for bad reports. (What the
// page shows is tested in real Chromium: tests/browser/.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/cli_runner.h"
#include "support/onnx_builder.h"

namespace fs = std::filesystem;
using namespace rooflens::testing;

namespace {

class ReportCmd : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rooflens-report-cmd-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    auto m = empty_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "x", {1, 64});
    add_value(g->mutable_output(), "y", {1, 64});
    add_float_initializer(g, "W", {64, 64});
    add_node(g, "MatMul", {"x", "W"}, {"y"}, "<b>mm</b>");
    save(m, path("mm.onnx"));
    auto r = cli("analyze " + path("mm.onnx") + " --format json -o " + path("mm.json"));
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  void TearDown() override { if (!getenv("KEEP")) fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  CliResult cli(const std::string& args) { return run_cli(args, dir_.string()); }

  fs::path dir_;
};

TEST_F(ReportCmd, WritesNextToTheReportByDefaultOrWhereAsked) {
  auto r = cli("report " + path("mm.json"));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "wrote " + path("mm.html") + " (" + std::to_string((fs::file_size(path("mm.html")) + 1023) / 1024) +
                       " KiB)\n");
  std::string page = slurp(path("mm.html"));
  EXPECT_EQ(page.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(page.find("\\u003cb\\u003emm\\u003c/b\\u003e"), std::string::npos) << "the node name, escaped";
  EXPECT_EQ(page.find("<b>mm</b>"), std::string::npos);

  r = cli("report " + path("mm.json") + " -q -o " + path("elsewhere.html"));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(slurp(path("elsewhere.html")), page);

  r = cli("report " + path("mm.json") + " -o -");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, page);
}

TEST_F(ReportCmd, BadReportsGetOneLineErrors) {
  std::ofstream(path("broken.json")) << "{\"schema\": \"rooflens.report/1\", \"tool\": ";
  std::ofstream(path("foreign.json")) << "{\"schema\": \"other/9\"}";
  for (const auto& [file, says] : {std::pair<std::string, std::string>{"missing.json", "cannot open"},
                                   {"broken.json", "invalid JSON"}, {"foreign.json", "unsupported report schema"}}) {
    auto r = cli("report " + path(file));
    EXPECT_EQ(r.rc, 1) << file << ": " << r.err;
    EXPECT_EQ(r.err_lines(), 1) << r.err;
    EXPECT_NE(r.err.find(path(file)), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path(fs::path(file).replace_extension(".html").string()))) << "no page for a bad report";
  }
  auto r = cli("report " + path("mm.json") + " -o " + path("no/such/dir/x.html"));
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_EQ(r.err_lines(), 1) << r.err;
  EXPECT_EQ(cli("report").rc, 2);
}

}  // namespace
