// The command line's conventions through the real binary: `-o FILE` is every command's main output (the old -f is
// still taken, with a note), format names take the spellings users type, `--version` says what this build is and
// which runtimes it finds, and `doctor` says what is missing (exit 1 when nothing can be profiled).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/ort_suite.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens::testing;

namespace {

class CliConventions : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fresh_test_dir("rooflens-cli-conventions"));
    save_zoo_model("squeezenet1_0", {}, (*dir_ / "m.onnx").string());
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::string path(const std::string& name) { return shell_quote((*dir_ / name).string()); }
  static CliResult cli(const std::string& args) { return run_cli(args, dir_->string()); }
  static fs::path* dir_;
};
fs::path* CliConventions::dir_ = nullptr;

TEST_F(CliConventions, DashOWritesTheMainOutputAndTheOldDashFStillWorksWithANote) {
  if (!ort_runner_available()) GTEST_SKIP() << "onnxruntime-node is not installed: run `make deps`";
  const std::string quick = " --warmup-ms 0 --duration 0 --iterations 2 --no-layers --no-roofs --no-db -q";
  CliResult o = cli("profile " + path("m.onnx") + quick + " -o " + path("o.json"));
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.err.find("deprecated"), std::string::npos) << o.err;
  EXPECT_EQ(json::parse(slurp((*dir_ / "o.json").string()))["tool"]["command"], "profile");
  CliResult f = cli("profile " + path("m.onnx") + quick + " -f " + path("f.json"));
  ASSERT_EQ(f.rc, 0) << f.err;
  EXPECT_TRUE(fs::exists(*dir_ / "f.json"));
  EXPECT_NE(f.err.find("rooflens profile: -f is deprecated and goes away in the next release; use -o FILE"),
            std::string::npos) << f.err;
  EXPECT_EQ(cli("profile --help").out.find("-f,"), std::string::npos);  // hidden from --help
  // whatif and generate take -o too.
  CliResult w = cli("whatif " + path("o.json") + " --threads 1 -o " + path("w.json"));
  EXPECT_TRUE(w.rc == 0 || w.rc == 1) << w.err;  // no 1-thread roofs (--no-roofs) is a refusal, not a usage error
  EXPECT_EQ(cli("generate --help").out.find("-f,"), std::string::npos);
  EXPECT_NE(cli("generate --help").out.find("-o,--output"), std::string::npos);
}

TEST_F(CliConventions, FormatNamesTakeTheSpellingsUsersType) {
  const std::string fixture = shell_quote(std::string(ROOFLENS_SOURCE_DIR) + "/tests/fixtures/import/onnxruntime/cpu_2019.json");
  for (const char* spelling : {"ort", "ONNXRuntime", "onnxruntime"}) {
    CliResult r = cli(std::string("import ") + spelling + " " + fixture + " -q --no-db -o " + path("imp.json"));
    EXPECT_EQ(r.rc, 0) << spelling << ": " << r.err;
  }
  const std::string ne = shell_quote(std::string(ROOFLENS_SOURCE_DIR) +
                                     "/tests/fixtures/import/neural_engine/profiling_2023-03-01_10-00-00_0.csv");
  for (const char* spelling : {"neural_engine", "neural-engine"})
    EXPECT_EQ(cli(std::string("import ") + spelling + " " + ne + " -q --no-db -o " + path("ne.json")).rc, 0) << spelling;
  CliResult bad = cli("import tensorflow " + fixture);
  EXPECT_EQ(bad.rc, 2);
  EXPECT_EQ(bad.err_lines(), 1) << bad.err;
  for (const char* listed : {"trtexec (also trt", "onnxruntime (also ort)", "neural-engine", "openvino", "megengine",
                              "ncu (also nsight-compute)"})
    EXPECT_NE(bad.err.find(listed), std::string::npos) << bad.err;
}

TEST_F(CliConventions, VersionSaysWhatThisBuildIsAndWhichRuntimesItFinds) {
  CliResult v = cli("--version");
  ASSERT_EQ(v.rc, 0) << v.err;
  EXPECT_EQ(v.out.rfind(std::string("rooflens ") + ROOFLENS_VERSION + " (", 0), 0u) << v.out;
  for (const char* part : {"runtime onnxruntime:", "runtime opencv:", "built with:", "SQLite ", "libpq ", "ONNX (libonnx) "})
    EXPECT_NE(v.out.find(part), std::string::npos) << part << " in " << v.out;
  if (ort_runner_available()) {
    EXPECT_NE(v.out.find("runtime onnxruntime: 1."), std::string::npos) << v.out;
  }
  // Every report names the same build.
  CliResult a = cli("analyze " + path("m.onnx") + " --format json");
  ASSERT_EQ(a.rc, 0) << a.err;
  const json tool = json::parse(a.out)["tool"];
  EXPECT_FALSE(tool["commit"].get<std::string>().empty());
  EXPECT_GE(tool["built_with"].size(), 4u);
}

TEST_F(CliConventions, DoctorSaysWhatIsMissingAndFailsWithoutTheRuntime) {
  CliResult missing = run_cli_env("ROOFLENS_RUNNER_DIR=" + path("no-runner") + " ", "doctor", dir_->string());
  EXPECT_EQ(missing.rc, 1) << missing.out << missing.err;
  EXPECT_NE(missing.out.find("MISSING  runtime onnxruntime: not usable:"), std::string::npos) << missing.out;
  EXPECT_NE(missing.out.find("make deps-run"), std::string::npos) << missing.out;
  EXPECT_NE(missing.out.find("not ready"), std::string::npos) << missing.out;
  if (!ort_runner_available()) return;
  CliResult ok = cli("doctor");
  EXPECT_EQ(ok.rc, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("ok       runtime onnxruntime"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("database:"), std::string::npos) << ok.out;
}

}  // namespace
