// ONNX Runtime's int8 kernels on an x86 CPU without VNNI, emulated: the runner runs under qemu-user as a Haswell
// (AVX2/FMA, no AVX-512, no VNNI), so ORT's u8s8 kernels take their vpmaddubsw path, whose 16-bit pair sums saturate.
// rooflens itself runs natively; the machine it describes is the --roofs file's, an AVX2 CPU's features (a report's
// machine is its roofs' machine). profile's int8 check then measures the zoo's QDQ MobileNetV2 against the same model
// at opt-level disabled, and lint's u8s8-saturation names it; the fp32 model draws nothing. Skipped, with the reason,
// where qemu-x86_64 cannot run Node. Slow by nature (emulation), so the models are 64x64 and each runs once or twice.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/emulated_cpu.h"
#include "support/ort_suite.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens::testing;

namespace {

// An AVX2 machine's roofs: its features are what the int8 verdict reads; the ceilings only place layers.
const char* kAvx2Roofs = R"json({"source":"measured","machine":{"model":"QEMU Haswell (emulated)","cores":2,"threads":2,
  "isa":["sse2","avx","fma","avx2"]},
  "compute":[{"name":"fp32_fma","isa":"avx2","dtype":"fp32","threads":1,"gflops":50},
             {"name":"fp32_fma","isa":"avx2","dtype":"fp32","threads":2,"gflops":100}],
  "memory":[{"level":"DRAM","kernel":"read","threads":1,"gbps":10},{"level":"DRAM","kernel":"read","threads":2,"gbps":20}]})json";

// One run each, profiling once: these tests check what the runtime computed, not how fast.
const char* kOnce = " --threads 1 --warmup 1 --warmup-ms 0 --duration 0 --iterations 1 --profile-iterations 1 -q ";

std::string first_line_of(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buf[4096];
    if (std::fgets(buf, sizeof buf, p)) out = buf;
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

class Int8EmulatedTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fresh_test_dir("rooflens-int8-emulated"));
    skip_ = why_not();
    if (!skip_.empty()) return;
    std::ofstream(path("avx2-roofs.json")) << kAvx2Roofs;
  }
  static void TearDownTestSuite() {
    if (!getenv("KEEP")) fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
  }

  // "" when the emulated runner can run; else why not. Writes bin/node, which runs the real node under qemu.
  static std::string why_not() {
    if (!ort_runner_available()) return "onnxruntime-node is not installed: run `make deps`";
    const std::string qemu = first_line_of("command -v qemu-x86_64");
    if (qemu.empty()) return "qemu-x86_64 is not installed (Debian's qemu-user: apt-get install qemu-user)";
    // "qemu-x86_64 version 7.2.19 (Debian 1:7.2+dfsg-7+deb12u12)": TCG emulates AVX2 from 7.2 on.
    int major = 0, minor = 0;
    const std::string version = first_line_of(shell_quote(qemu) + " --version");
    if (std::sscanf(version.c_str(), "qemu-x86_64 version %d.%d", &major, &minor) != 2 || major * 100 + minor < 702)
      return "qemu-x86_64 before 7.2 does not emulate AVX2 (" + version + ")";
    const std::string node = first_line_of("command -v node");
    if (node.empty()) return "node is not on PATH";
    fs::create_directories(*dir_ / "bin");
    const std::string wrapper = path("bin/node");
    std::ofstream(wrapper) << "#!/bin/sh\nexec " << shell_quote(qemu) << " -cpu " << kEmulatedHaswell << " "
                           << shell_quote(node) << " \"$@\"\n";
    fs::permissions(wrapper, fs::perms::owner_all, fs::perm_options::add);
    const std::string probe = first_line_of(shell_quote(wrapper) + " -e \"console.log('up')\" 2>&1");
    if (probe != "up") return "qemu-x86_64 -cpu Haswell cannot run node here: " + probe;
    return "";
  }

  static std::string path(const std::string& name) { return (*dir_ / name).string(); }
  static CliResult cli(const std::string& args) { return run_cli(args, dir_->string()); }
  // rooflens with the runner under emulation: `node` on PATH is the wrapper.
  static CliResult emulated(const std::string& args) {
    return run_cli_env("PATH=" + shell_quote(path("bin")) + ":\"$PATH\" ", args, dir_->string());
  }
  static json read_json(const std::string& p) { return json::parse(slurp(p)); }
  static const json* finding(const json& report, const std::string& rule) {
    for (const auto& f : report["findings"])
      if (f["rule"] == rule) return &f;
    return nullptr;
  }

  static inline fs::path* dir_ = nullptr;
  static inline std::string skip_;
};

}  // namespace

TEST_F(Int8EmulatedTest, OnAnAvx2CpuTheInt8ModelDeviatesAndLintSaysWhyButNotForTheFp32Model) {
  const std::string int8 = path("mobilenet_v2-int8.onnx"), fp32 = path("mobilenet_v2.onnx");
  ASSERT_EQ(cli("zoo make mobilenet_v2 --image 64 --batch 1 --quantize qdq -o " + int8).rc, 0);
  ASSERT_EQ(cli("zoo make mobilenet_v2 --image 64 --batch 1 -o " + fp32).rc, 0);
  const std::string roofs = " --roofs " + path("avx2-roofs.json");

  const std::string report = path("int8.json");
  CliResult r = emulated("profile " + int8 + kOnce + roofs + " -o " + report);
  ASSERT_EQ(r.rc, 0) << r.err;
  json rep = read_json(report);
  // The int8 weights the QLinearConv kernels multiply use the whole int8 range: nothing keeps a pair sum in 16 bits.
  ASSERT_TRUE(rep["model"].contains("int8_weights")) << rep["model"].dump(1).substr(0, 2000);
  EXPECT_LT(rep["model"]["int8_weights"]["min"].get<int>(), -64);
  EXPECT_GT(rep["model"]["int8_weights"]["max"].get<int>(), 64);
  const json& run = rep["runs"][0];
  ASSERT_TRUE(run.contains("int8_check")) << run["warnings"].dump();
  const json& check = run["int8_check"];
  EXPECT_EQ(check["isa"], json::parse(R"(["sse2","avx","fma","avx2"])"));
  EXPECT_EQ(check["validation"]["reference"], "opt-level disabled");
  // On VNNI the optimized logits stay within one output step of the unoptimized run (docs/profile.md); here the
  // saturated sums move some by two steps or more.
  const double step = check["output_step"].get<double>();
  ASSERT_GT(step, 0);
  uint64_t beyond = 0;
  double max_error = 0;
  for (const auto& o : check["validation"]["outputs"]) {
    beyond += o["mismatched"].get<uint64_t>();
    max_error = std::max(max_error, o["max_abs_error"].get<double>());
  }
  EXPECT_GT(beyond, 0u) << check.dump(1);
  EXPECT_GE(max_error, 1.9 * step) << check.dump(1);

  const json* f = finding(rep, "u8s8-saturation");
  ASSERT_NE(f, nullptr) << rep["findings"].dump(1);
  EXPECT_EQ((*f)["severity"], "error");
  EXPECT_NE((*f)["title"].get<std::string>().find(std::to_string(beyond) + " of "), std::string::npos) << (*f)["title"];
  // The layers it names are the runtime's u8s8 kernels (the convolutions and the classifier's Gemm): uint8 activations.
  ASSERT_FALSE((*f)["layers"].empty());
  for (const auto& name : (*f)["layers"])
    for (const auto& l : run["layers"])
      if (l["name"] == name) {
        EXPECT_TRUE(l["op"] == "QLinearConv" || l["op"] == "QGemm") << name << ": " << l["op"];
        EXPECT_EQ(l["input_dtypes"][0], "uint8") << name;
      }
  // CI can gate on it.
  EXPECT_EQ(cli("lint " + report + " --rule u8s8-saturation --fail-on error").rc, 1);

  // The fp32 model on the same emulated CPU: no int8 kernels, no check, no finding (timed only: the check concerns
  // what it computes, not where its time goes).
  const std::string fp32_report = path("fp32.json");
  r = emulated("profile " + fp32 + kOnce + roofs + " --no-layers -o " + fp32_report);
  ASSERT_EQ(r.rc, 0) << r.err;
  json plain = read_json(fp32_report);
  EXPECT_FALSE(plain["model"].contains("int8_weights"));
  EXPECT_FALSE(plain["runs"][0].contains("int8_check"));
  EXPECT_EQ(finding(plain, "u8s8-saturation"), nullptr) << plain["findings"].dump(1);
}
