// The score's int8 workloads on an x86 CPU without VNNI, whatever CPU runs the test: ONNX Runtime's runner runs
// under Debian's qemu-user as a Haswell (AVX2 and FMA, no AVX-512, no VNNI; QEMU 7.2's TCG emulates AVX2), so ORT's
// MLAS picks its AVX2 u8s8 kernels — vpmaddubsw, whose 16-bit sums of two products saturate on full-range weights.
//   - suite v2's int8 workloads (7-bit weights) validate there against the references made on a VNNI machine;
//   - suite v1's full-range mobilenet_v2-int8 does not: the same path a real AVX2 machine takes (on an AMD EPYC
//     without VNNI, issue 39: 235 of 1000 logits beyond the tolerance) — which also shows the emulated runner really
//     took the non-VNNI kernels.
// `score --validate` only computes each model's outputs once (int8 kernels: seconds each even emulated); nothing
// here depends on how fast the machine is. Without qemu-user (scripts/install-deps.sh installs it), or where it
// cannot run node, the test is skipped and says why.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/emulated_cpu.h"
#include "support/ort_cli_suite.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens::testing;

namespace {

std::string which(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = dirs.find(':', start);
    const fs::path p = fs::path(dirs.substr(start, end == std::string::npos ? std::string::npos : end - start)) / program;
    if (::access(p.c_str(), X_OK) == 0) return p.string();
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

class ScoreNonVnniTest : public OrtCliSuite<ScoreNonVnniTest> {
 public:
  static constexpr const char* kDir = "rooflens-score-non-vnni";

 protected:
  void SetUp() override {
    OrtCliSuite::SetUp();
    if (IsSkipped()) return;
    const std::string qemu = which("qemu-x86_64"), node = which("node");
    if (qemu.empty()) GTEST_SKIP() << "qemu-x86_64 not found (Debian's qemu-user: scripts/install-deps.sh installs it)";
    if (node.empty()) GTEST_SKIP() << "node not found";
    // A `node` first in PATH that runs the real one emulated: the runners rooflens starts are then Haswells.
    const fs::path bin = *dir_ / "bin";
    fs::create_directories(bin);
    std::ofstream(bin / "node") << "#!/bin/sh\nexec " << shell_quote(qemu) << " -cpu " << kEmulatedHaswell << " "
                                << shell_quote(node) << " \"$@\"\n";
    fs::permissions(bin / "node", fs::perms::owner_all);
    path_ = "PATH=" + shell_quote(bin.string() + ":" + std::getenv("PATH")) + " ";
    const CliResult probe = run("", std::string(bin / "node") + " -e 'process.stdout.write(\"ok\")'");
    if (probe.rc != 0 || probe.out != "ok")
      GTEST_SKIP() << "qemu-x86_64 -cpu " << kEmulatedHaswell << " cannot run node here: " << probe.err;
  }

  // A shell command in the test directory, its output captured (the emulated node, not rooflens).
  static CliResult run(const std::string& env, const std::string& command) {
    const std::string out = path("probe.out"), err = path("probe.err");
    const int status = std::system((env + command + " >" + shell_quote(out) + " 2>" + shell_quote(err)).c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }

  CliResult validate(const std::string& args) {
    return run_cli_env(path_, "score --validate --json -q " + args, dir_->string());
  }

  static const json& workload(const json& r, const std::string& id) {
    for (const auto& w : r["workloads"])
      if (w["id"] == id) return w;
    throw std::runtime_error("no workload " + id);
  }

  std::string path_;
};

TEST_F(ScoreNonVnniTest, Int8WorkloadsValidateWithoutVnniAndFullRangeWeightsDoNot) {
  const CliResult v2 = validate("--workloads mobilenet_v2-int8,resnet50-int8,bert_base-int8");
  ASSERT_FALSE(v2.out.empty()) << v2.err;
  const json r = json::parse(v2.out);
  EXPECT_EQ(r["suite"], "v2");
  for (const char* id : {"mobilenet_v2-int8", "resnet50-int8", "bert_base-int8"})
    EXPECT_EQ(workload(r, id)["status"], "valid") << id << ": " << workload(r, id)["reason"];
  EXPECT_EQ(v2.rc, 0) << v2.err;

  const CliResult v1 = validate("--suite " + shell_quote(std::string(ROOFLENS_SOURCE_DIR) + "/data/score/v1/suite.json") +
                                " --workloads mobilenet_v2-int8");
  ASSERT_FALSE(v1.out.empty()) << v1.err;
  const json old = json::parse(v1.out);
  const json& w = workload(old, "mobilenet_v2-int8");
  EXPECT_EQ(w["status"], "INVALID") << "full-range weights on the emulated AVX2 runner: " << w["reason"]
                                    << " — did ONNX Runtime take its VNNI kernels under qemu?";
  EXPECT_NE(w["reason"].get<std::string>().find("differ beyond"), std::string::npos) << w["reason"];
  EXPECT_GT(w["max_abs_error"].get<double>(), 0.05) << "more than one quantization step off";
  EXPECT_EQ(v1.rc, 1);
}

}  // namespace
