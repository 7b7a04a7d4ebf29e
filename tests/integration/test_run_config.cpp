// A run is what the report says, on the real runtimes: the thread count rooflens labels a run with is the count it
// passed and the count the runtime's own profile shows, also where the runtime's default would differ (a process
// allowed fewer CPUs than the machine has); and the peak memory a run reports is the runner's own, not the high-water
// mark rooflens carried into it after measuring its roofs with large buffers.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/common/cpu_budget.h"
#include "core/atomic_file.h"
#include "backends/onnxruntime/ort_runner.h"
#include "support/cli_runner.h"
#include "support/ort_suite.h"
#include "zoo/registry.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens;
using namespace rooflens::testing;

namespace {

// Short timings, no --threads: the thread count is rooflens' to choose.
const std::string kQuickRunConfig = " --warmup-ms 0 --duration 0 --iterations 3 --profile-iterations 3 -q --no-db ";

class RunConfigTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fresh_test_dir("rooflens-run-config-test"));
    ok_ = ort_runner_available();
    if (!ok_) return;
    zoo::ZooOptions small;
    small.image = 64;
    save_zoo_model("squeezenet1_0", small, model("squeezenet"));
    save_zoo_model("resnet50", {}, model("resnet50"));
  }
  static void TearDownTestSuite() {
    if (!getenv("KEEP")) fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    if (!ok_) GTEST_SKIP() << "onnxruntime-node is not installed: run `make deps`";
  }
  static std::string model(const std::string& name) { return (*dir_ / (name + ".onnx")).string(); }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }

  // `rooflens profile` (under `prefix`, e.g. a taskset) into REPORT; its first run.
  static json profile(const std::string& prefix, const std::string& args, const std::string& report) {
    auto r = run_cli_env(prefix, "profile " + args + kQuickRunConfig + "-f " + report, *dir_);
    EXPECT_EQ(r.rc, 0) << r.err;
    json rep = json::parse(slurp(report), nullptr, false);
    if (rep.is_discarded() || rep["runs"].empty()) {
      ADD_FAILURE() << "no run in " << report << ": " << r.err;
      return json::object();
    }
    return rep["runs"][0];
  }

  static json setting(const json& run, const std::string& name) {
    for (const auto& s : run.value("settings", json::array()))
      if (s["name"] == name) return s;
    ADD_FAILURE() << "no setting " << name << " in " << run.dump();
    return json::object();
  }

  static bool warns(const json& run, const std::string& text) {
    for (const auto& w : run["warnings"])
      if (w.get<std::string>().find(text) != std::string::npos) return true;
    return false;
  }

  static inline fs::path* dir_ = nullptr;
  static inline bool ok_ = false;
};

// ORT's own default here ignores the affinity mask (2 threads on this 2-core machine even under taskset -c 0):
// rooflens passes one thread per core it may use, labels the run with it, and ORT's profile shows that pool.
TEST_F(RunConfigTest, UnderOneAllowedCpuTheRunIsLabelledAndRunWithOneThread) {
  json run = profile("taskset -c 0 ", model("squeezenet") + " --no-roofs", path("taskset1.json"));
  EXPECT_EQ(run["threads"], 1);
  EXPECT_EQ(run["label"], "batch=1 threads=1");
  json threads = setting(run, "intra_op_threads");
  EXPECT_EQ(threads["value"], "1");
  EXPECT_EQ(threads["source"], "rooflens");
  EXPECT_NE(threads["note"].get<std::string>().find("CPU(s) 0 "), std::string::npos) << threads;
  ASSERT_TRUE(run.contains("threads_observed")) << run.dump();
  EXPECT_EQ(run["threads_observed"]["pool"], 1);
  EXPECT_FALSE(warns(run, "labelled threads="));
  EXPECT_FALSE(warns(run, "share"));
}

TEST_F(RunConfigTest, TwoThreadsAskedForUnderOneCpuRunTwoAndSayTheyShareIt) {
  json run = profile("taskset -c 0 ", model("squeezenet") + " --no-roofs --threads 2", path("taskset2.json"));
  EXPECT_EQ(run["threads"], 2);
  EXPECT_EQ(setting(run, "intra_op_threads")["source"], "user");
  ASSERT_TRUE(run.contains("threads_observed")) << run.dump();
  EXPECT_EQ(run["threads_observed"]["pool"], 2);
  EXPECT_TRUE(warns(run, "2 intra-op threads share 1 CPU(s)")) << run["warnings"].dump();
  EXPECT_FALSE(warns(run, "labelled threads="));
}

// Without a mask the count is the cores this process may use, which the runner inherits.
TEST_F(RunConfigTest, WithoutAMaskTheRunGetsOneThreadPerAllowedCoreAndTheProfileAgrees) {
  const int64_t cores = cpu_budget().cores;
  json run = profile("", model("squeezenet") + " --no-roofs", path("free.json"));
  EXPECT_EQ(run["threads"], cores);
  ASSERT_TRUE(run.contains("threads_observed")) << run.dump();
  EXPECT_EQ(run["threads_observed"]["pool"], cores);
  EXPECT_GE(run["threads_observed"]["working"].get<int64_t>(), 1);
  for (const char* name : {"spinning", "opt_level", "memory_arena", "device"})
    EXPECT_EQ(setting(run, name)["source"], "runtime_default") << name;
  // Where the time between kernels went: the executor's span and the pool, from the same profile.
  ASSERT_TRUE(run.contains("dispatch")) << run.dump();
  EXPECT_GT(run["dispatch"]["kernels"].get<int64_t>(), 10);
  EXPECT_TRUE(run["dispatch"].contains("outside_executor_ms"));
  EXPECT_TRUE(run["dispatch"].contains("executor_gaps_ms"));
  EXPECT_LE(run["dispatch"]["executor_gaps_ms"].get<double>(), run["between_kernels_ms"].get<double>() + 1e-9);
}

// The OpenCV runner gets the same explicit count; OpenCV's own read-back of it is the observed pool.
TEST_F(RunConfigTest, OpenCvUnderOneAllowedCpuIsGivenOneThread) {
  auto probe = run_cli("profile /nonexistent.onnx -B opencv -q", *dir_);
  if (probe.err.find("unknown backend") != std::string::npos) GTEST_SKIP() << "built without the OpenCV backend";
  json run = profile("taskset -c 0 ", model("squeezenet") + " --no-roofs -B opencv", path("opencv1.json"));
  EXPECT_EQ(run["threads"], 1);
  EXPECT_EQ(setting(run, "intra_op_threads")["option"], "cv::setNumThreads");
  ASSERT_TRUE(run.contains("threads_observed")) << run.dump();
  EXPECT_EQ(run["threads_observed"]["pool"], 1);
}

namespace {

uint64_t vm_hwm(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

}  // namespace

// Issue 28: the first run on a fresh machine measures the roofs in the rooflens process (bandwidth buffers far
// larger than a small model: ~540 MB here) and only then starts the runner. Linux hands a process's high-water
// mark to the program it spawns (posix_spawn execs in the parent's address space), so a runner reading getrusage's
// maxrss reported rooflens' peak. An empty cache forces that order here; the report must hold the runner's own
// peak: about what /proc says of a runner of this test that loaded and timed the same model.
TEST_F(RunConfigTest, PeakMemoryIsTheRunnersOwnAfterRooflensMeasuredItsRoofs) {
  const std::string cache = path("empty-cache");
  fs::create_directories(cache);
  json run = profile("XDG_CACHE_HOME=" + shell_quote(cache) + " ", model("squeezenet") + " --threads 1",
                     path("fresh-roofs.json"));
  ASSERT_FALSE(run.empty());
  ASSERT_TRUE(fs::exists(cache + "/rooflens")) << "the roofs were not measured in this run";
  const uint64_t reported = run["peak_rss_bytes"].get<uint64_t>();

  ort::OrtRunner runner;  // the same model, inference session and timed loop as the profile's
  ort::OrtSessionOptions o;
  o.intraOpNumThreads = 1;
  o.freeDimensionOverrides["batch"] = 1;
  runner.load(model("squeezenet"), o);
  ort::Inputs in;
  in.dims["batch"] = 1;
  TimingOptions t;
  t.warmup_ms = 0;
  t.iterations = 3;
  t.duration_s = 0;
  runner.run_timed(in, t, std::chrono::minutes(2));
  const uint64_t own = vm_hwm(runner.process().pid());
  ASSERT_GT(own, 0u);
  EXPECT_GT(reported, own * 3 / 4) << "reported " << reported << " B, /proc says " << own << " B";
  EXPECT_LT(reported, own * 4 / 3) << "reported " << reported << " B, /proc says " << own << " B";
}

// Roofs measured in a slow spell of the host (a guest's clock moved: 358 and 460 GFLOP/s a minute apart on one
// machine) sit under what a layer measured in a fast spell reaches. Cached roofs a quarter of what this machine did:
// the profile's layers go above them, rooflens measures the ceilings again right after the run, keeps the higher
// figures (noted, and cached), and no layer is left above its roof. The same low figures given with --roofs FILE are
// the user's: not measured again, and the layers above them are attribution errors, said.
TEST_F(RunConfigTest, RoofsMeasuredInASlowSpellAreMeasuredAgainWhenALayerRunsAboveThem) {
  const std::string cache = path("slow-spell-cache");
  const std::string env = "XDG_CACHE_HOME=" + shell_quote(cache) + " ";
  ASSERT_EQ(run_cli_env(env, "hw --quick -o " + shell_quote(path("quick-roofs.json")), *dir_).rc, 0);
  fs::path cached;
  for (const auto& e : fs::directory_iterator(cache + "/rooflens"))
    if (e.path().filename().string().rfind("hw-", 0) == 0) cached = e.path();
  ASSERT_FALSE(cached.empty()) << "hw --quick cached nothing under " << cache;
  json low = json::parse(slurp(cached.string()));
  std::map<std::string, double> lowered;  // "name xT" -> the lowered figure
  for (auto& c : low["compute"]) {
    c["gflops"] = c["gflops"].get<double>() / 4;
    lowered[c["name"].get<std::string>() + " x" + std::to_string(c["threads"].get<int64_t>())] = c["gflops"];
  }
  write_file_atomically(cached.string(), low.dump(2));
  write_file_atomically(path("low-roofs.json"), low.dump(2));
  auto above = [](const json& run) {
    int n = 0;
    for (const auto& l : run["layers"]) n += l.contains("attribution_error");
    return n;
  };

  auto r = run_cli_env(env, "profile " + model("resnet50") + " --threads 1" + kQuickRunConfig + "-o " +
                                shell_quote(path("rechecked.json")), *dir_);
  ASSERT_EQ(r.rc, 0) << r.err;
  json rep = json::parse(slurp(path("rechecked.json")));
  const json& run = rep["runs"][0];
  EXPECT_EQ(above(run), 0) << "layers above the roofs measured again: " << run["warnings"].dump();
  double fp32 = 0;
  for (const auto& c : rep["hardware"]["compute"])
    if (c["dtype"] == "fp32" && c["threads"] == 1) fp32 = std::max(fp32, c["gflops"].get<double>());
  bool noted = false;
  for (const auto& n : rep["hardware"]["notes"]) noted |= n.get<std::string>().find("x1 measured again after a layer ran above it") != std::string::npos;
  EXPECT_TRUE(noted) << rep["hardware"]["notes"].dump();
  double lowest_fp32 = 1e300;
  for (const auto& [name, g] : lowered)
    if (name.rfind("fp32", 0) == 0 && name.find(" x1") != std::string::npos) lowest_fp32 = std::min(lowest_fp32, g);
  EXPECT_GT(fp32, 2 * lowest_fp32) << "the fp32 ceiling was not raised";
  // The cache keeps the higher figures: the next run starts from them.
  json again = json::parse(slurp(cached.string()));
  double cached_fp32 = 0;
  for (const auto& c : again["compute"])
    if (c["dtype"] == "fp32" && c["threads"] == 1) cached_fp32 = std::max(cached_fp32, c["gflops"].get<double>());
  EXPECT_DOUBLE_EQ(cached_fp32, fp32);

  r = run_cli_env(env, "profile " + model("resnet50") + " --threads 1 --roofs " + shell_quote(path("low-roofs.json")) +
                           kQuickRunConfig + "-o " + shell_quote(path("user-roofs.json")), *dir_);
  ASSERT_EQ(r.rc, 0) << r.err;
  rep = json::parse(slurp(path("user-roofs.json")));
  EXPECT_GT(above(rep["runs"][0]), 0) << "a quarter of the machine's roofs, given by the user, held no layer above them";
  EXPECT_EQ(rep["hardware"]["notes"].dump().find("measured again"), std::string::npos);
  EXPECT_TRUE(warns(rep["runs"][0], "above their roof by more than 10%")) << rep["runs"][0]["warnings"].dump();
}

// The OpenCV runner (C++, getrusage before) the same way: its own peak, as /proc says of it.
TEST_F(RunConfigTest, OpenCvPeakMemoryIsTheRunnersOwn) {
  auto probe = run_cli("profile /nonexistent.onnx -B opencv -q", *dir_);
  if (probe.err.find("unknown backend") != std::string::npos) GTEST_SKIP() << "built without the OpenCV backend";
  const std::string cache = path("empty-cache-opencv");
  fs::create_directories(cache);
  json run = profile("XDG_CACHE_HOME=" + shell_quote(cache) + " ", model("squeezenet") + " --threads 1 -B opencv",
                     path("fresh-roofs-opencv.json"));
  ASSERT_FALSE(run.empty());
  const uint64_t reported = run["peak_rss_bytes"].get<uint64_t>();
  json again = profile("", model("squeezenet") + " --threads 1 -B opencv --no-roofs", path("opencv-no-roofs.json"));
  const uint64_t plain = again["peak_rss_bytes"].get<uint64_t>();  // started by a rooflens that measured nothing
  ASSERT_GT(plain, 0u);
  EXPECT_GT(reported, plain * 3 / 4) << "after roofs " << reported << " B, without " << plain << " B";
  EXPECT_LT(reported, plain * 4 / 3) << "after roofs " << reported << " B, without " << plain << " B";
}

}  // namespace
