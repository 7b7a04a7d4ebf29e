// ONNX Runtime Web as a live backend (-B ortweb: onnxruntime-web's WebAssembly build in Node, through the same runner
// as onnxruntime-node): a zoo model and a real model from an npm package profiled with every kernel mapped to the
// user's nodes, the layers covering the run, none above its roof; the threads the WebAssembly module ran read back —
// a Node without SharedArrayBuffer runs one thread whatever was asked, and the report says so.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/mapping_checks.h"
#include "support/onnx_builder.h"
#include "support/ort_suite.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens::testing;

namespace {

bool ortweb_installed() {
  if (!ort_runner_available()) return false;
  return fs::exists(fs::path(ROOFLENS_SOURCE_DIR) / "runners" / "ort" / "node_modules" / "onnxruntime-web" / "package.json");
}

fs::path corpus_model(const std::string& file) {
  const char* env = std::getenv("ROOFLENS_CORPUS");
  return (env ? fs::path(env) : fs::path(ROOFLENS_SOURCE_DIR) / "corpus") / file;
}

class OrtWebTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fresh_test_dir("rooflens-ortweb-test"));
    rooflens::zoo::ZooOptions o;
    o.image = 64;
    save_zoo_model("mobilenet_v2", o, path("mobilenet_v2.onnx"));
    tiny_kernel_chain_model(path("tiny_kernels.onnx"), 150);
  }
  static void TearDownTestSuite() {
    if (!std::getenv("KEEP")) fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    if (!ortweb_installed()) GTEST_SKIP() << "onnxruntime-web is not installed in runners/ort: run `make deps`";
  }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }

  // Against this machine's measured roofs (cached, or hw --quick on the first profile): WebAssembly runs below what
  // the native kernels reach, so no layer of the web build may sit above them.
  static json profile(const std::string& model, const std::string& flags, const std::string& backend) {
    const std::string out = path("p.json");
    CliResult r = run_cli("profile " + shell_quote(model) + flags + kQuickProfile + "-B " + backend + " -o " +
                              shell_quote(out),
                          dir_->string());
    if (r.rc != 0) ADD_FAILURE() << r.err << r.out;
    return r.rc == 0 ? json::parse(slurp(out)) : json();
  }

  // What `backend`'s profiler spends between two kernels, from a chain of 150 one-float Relu kernels profiled now.
  static double profiler_gap_ms(const std::string& backend) {
    const json chain = profile(path("tiny_kernels.onnx"), "", backend);
    if (chain.is_null() || chain["runs"][0]["layers"].size() < 150) {
      ADD_FAILURE() << "the chain of tiny kernels did not run as 150 kernels on " << backend;
      return 0;
    }
    const json& run = chain["runs"][0];
    return run["between_kernels_ms"].get<double>() / static_cast<double>(run["layers"].size());
  }

  static inline fs::path* dir_ = nullptr;
};

constexpr double kPageClockStepMs = 0.005;  // performance.now in a cross-origin isolated Chromium page

bool chromium_installed() {
  const char* env = std::getenv("ROOFLENS_CHROMIUM");
  return fs::exists(env ? env : "/usr/bin/chromium") &&
         fs::exists(fs::path(ROOFLENS_SOURCE_DIR) / "web" / "node_modules" / "playwright-core" / "package.json");
}

std::map<std::string, json> settings_of(const json& run) {
  std::map<std::string, json> out;
  for (const auto& s : run["settings"]) out[s["name"].get<std::string>()] = s;
  return out;
}

// How much of a profiled run its kernels must cover. A model of large kernels: `min_coverage` (0.95). A model of many
// tiny kernels cannot reach that however little the runtime does, because ORT's profiler spends microseconds of its own
// between two kernels (the web build ~5 us: a chain of 200 one-float Relu kernels runs 0.9 us a kernel plain and 16.6
// us profiled, 11 us of it inside the kernel events). For such a model `profiler_gap_ms`, the time between two kernels
// of a chain of tiny kernels profiled in the same host just before (tiny_kernel_chain_model), bounds the time between
// its kernels instead: no more per kernel than the profiler's own, with room for the noise of two measurements.
// `clock_step_ms`: the step of the clock the kernels were timed with (a Chromium page coarsens performance.now to 5 us
// when cross-origin isolated): each kernel's time may be short by up to one step, so the coverage by kernels x step.
struct CoverageBound {
  double min_coverage = 0.95;
  double profiler_gap_ms = 0;  // > 0: bound the time between kernels by it instead of the coverage by min_coverage
  double clock_step_ms = 0;
};

void expect_web_run_holds(const json& rep, const std::string& what, const CoverageBound& bound = {}) {
  ASSERT_FALSE(rep.is_null()) << what;
  ASSERT_EQ(rep["backends"].size(), 1u);
  EXPECT_EQ(rep["backends"][0]["name"], "ortweb") << what;
  EXPECT_NE(rep["backends"][0]["runtime"].get<std::string>().find("onnxruntime-web"), std::string::npos) << what;
  const json& run = rep["runs"][0];
  expect_mapping_invariants(rep, what);
  EXPECT_EQ(run["unmapped_kernels"], 0) << what;
  const double kernels = static_cast<double>(run["layers"].size());
  const double run_ms = run["profiled_run_ms"].get<double>();
  if (bound.profiler_gap_ms > 0)
    EXPECT_LE(run["between_kernels_ms"].get<double>(), 1.5 * kernels * bound.profiler_gap_ms + 0.05 * run_ms)
        << what << ": more time between its " << kernels << " kernels than the profiler's own "
        << bound.profiler_gap_ms * 1000 << " us each; profiled run " << run_ms << " ms, dispatch "
        << run.value("dispatch", json()).dump() << ", warnings " << run["warnings"].dump();
  else
    EXPECT_GE(run["coverage"].get<double>(), bound.min_coverage - kernels * bound.clock_step_ms / run_ms) << what;
  // The runner's calibration of the profiler's bookkeeping (runners/ort/profiler_gap.mjs, a lower bound) sets aside
  // no more than the time between kernels, so the coverage without it is at least the coverage and at most the run;
  // and it is no more than what a chain of tiny kernels, profiled by rooflens just before, shows between two kernels
  // in all (bound.profiler_gap_ms: the profiler's step and the executor's together), with room for two measurements
  // in two processes: 1.64x was seen between two pages on a busy 2-core guest, where the test passes alone.
  ASSERT_TRUE(run.contains("dispatch") && run["dispatch"].contains("profiler_gap_ms")) << what << ": not calibrated";
  const json& d = run["dispatch"];
  EXPECT_GT(d["profiler_gap_ms"].get<double>(), 0) << what;
  EXPECT_LE(d["profiler_bookkeeping_ms"].get<double>(), run["between_kernels_ms"].get<double>() + 1e-9) << what;
  EXPECT_GE(d["coverage_without_profiler"].get<double>(), run["coverage"].get<double>() - 1e-9) << what;
  EXPECT_LE(d["coverage_without_profiler"].get<double>(), 1.02) << what;
  if (bound.profiler_gap_ms > 0) {
    EXPECT_LE(d["profiler_gap_ms"].get<double>(), 2 * bound.profiler_gap_ms)
        << what << ": the runner's lower bound of the profiler's step is above a tiny-kernel chain's whole step";
  }
  // The kernels and the time between them account for the profiled run.
  const double accounted = run["between_kernels_ms"].get<double>() + run["coverage"].get<double>() * run_ms;
  EXPECT_NEAR(accounted / run_ms, 1.0, 0.06) << what << ": coverage " << run["coverage"] << ", between "
                                             << run["between_kernels_ms"] << " ms, profiled run " << run_ms << " ms";
  // The graph the kernels were mapped on is the native build's, checked against every web kernel.
  EXPECT_EQ(settings_of(run)["executed_graph"]["value"], "the native build's, checked") << what << run["warnings"];
  // Its layers meet WebAssembly's own roofs, measured in the host they ran in, with the CPU's beside them; a roof of
  // WebAssembly is never above the CPU's, so a compute-bound layer is a larger share of the former.
  const std::string engine = run.value("roofs_engine", "");
  EXPECT_EQ(engine, rep["backends"][0]["runtime"].get<std::string>().find("in Chromium") != std::string::npos
                        ? "wasm:chromium"
                        : "wasm:node")
      << what << run["warnings"];
  bool engine_roofs = false;
  for (const auto& e : rep["hardware"].value("engines", json::array())) engine_roofs |= e["engine"] == engine;
  EXPECT_TRUE(engine_roofs) << what << ": the report's roofs hold no " << engine;
  for (const auto& l : run["layers"]) {
    EXPECT_EQ(l.value("attribution_error", ""), "") << what << ": " << l["name"] << " ran above its roof";
    if (l["bound"] == "compute" && l["cpu_roof"].get<std::string>().find("fp32") != std::string::npos) {
      EXPECT_LE(l["cpu_efficiency"].get<double>(), l["efficiency"].get<double>() * 1.10)
          << what << ": " << l["name"] << " is a larger share of the CPU's roof than of WebAssembly's";
    }
  }
  // Its memory is measured, never predicted from the native build's rules (one WebAssembly block that only grows).
  ASSERT_TRUE(run.contains("memory")) << what;
  EXPECT_NE(run["memory"].value("not_predicted", "").find("WebAssembly"), std::string::npos) << what;
  EXPECT_GT(run["memory"]["measured"]["peak_bytes"].get<int64_t>(), 0) << what;
  EXPECT_TRUE(run["memory"]["explained"].empty()) << what;
}

TEST_F(OrtWebTest, AZooModelAndARealModelProfileInNodeWithEveryKernelMapped) {
  expect_web_run_holds(profile(path("mobilenet_v2.onnx"), "", "ortweb"), "zoo mobilenet_v2");
  const fs::path cls = corpus_model("ppocr_mobile_v2_cls.onnx");
  if (!fs::exists(cls)) GTEST_SKIP() << "the corpus is not built: run `make corpus`";
  // 155 kernels in ~5 ms: the time between them is held against the profiler's own, measured here.
  const CoverageBound tiny{.profiler_gap_ms = profiler_gap_ms("ortweb")};
  expect_web_run_holds(profile(cls.string(), " --shape x:1x3x48x192", "ortweb"), "ppocr_mobile_v2_cls", tiny);
}

// The Chromium host: the same zoo and real models in a headless Chromium page served with COOP/COEP (threads), and a
// page served without them, which must be labelled single-threaded whatever was asked.
TEST_F(OrtWebTest, TheChromiumHostProfilesAndLabelsThreadsByCrossOriginIsolation) {
  if (!chromium_installed()) GTEST_SKIP() << "Chromium or playwright-core missing: apt-get install chromium; make deps";
  const json rep = profile(path("mobilenet_v2.onnx"), "", "ortweb:host=chromium");
  expect_web_run_holds(rep, "zoo mobilenet_v2 in Chromium", {.clock_step_ms = kPageClockStepMs});
  ASSERT_FALSE(rep.is_null());
  EXPECT_NE(rep["backends"][0]["runtime"].get<std::string>().find("in Chromium"), std::string::npos);
  EXPECT_EQ(rep["runs"][0]["threads"], 2);
  std::map<std::string, json> s = settings_of(rep["runs"][0]);
  EXPECT_NE(s["host"]["value"].get<std::string>().find(", cross-origin isolated"), std::string::npos) << s["host"];

  // What ran is read back at load and in the timed runs: no profiled run needed (25 s of the test's time).
  const json lone = profile(path("mobilenet_v2.onnx"), " --no-layers", "ortweb:host=chromium,isolation=off");
  ASSERT_FALSE(lone.is_null());
  EXPECT_EQ(lone["runs"][0]["threads"], 1);
  s = settings_of(lone["runs"][0]);
  EXPECT_EQ(s["intra_op_threads"]["value"], "1");
  EXPECT_EQ(s["intra_op_threads"]["source"], "observed");
  EXPECT_NE(s["intra_op_threads"]["note"].get<std::string>().find("SharedArrayBuffer"), std::string::npos);
  EXPECT_NE(s["host"]["value"].get<std::string>().find("not cross-origin isolated"), std::string::npos);

  const fs::path cls = corpus_model("ppocr_mobile_v2_cls.onnx");
  if (!fs::exists(cls)) GTEST_SKIP() << "the corpus is not built: run `make corpus`";
  const CoverageBound tiny{.profiler_gap_ms = profiler_gap_ms("ortweb:host=chromium"),
                           .clock_step_ms = kPageClockStepMs};
  expect_web_run_holds(profile(cls.string(), " --shape x:1x3x48x192", "ortweb:host=chromium"),
                       "ppocr_mobile_v2_cls in Chromium", tiny);
}

// One model on the two runtimes: compare measures the native and the web build in turns and matches their layers by
// the ONNX nodes they compute.
TEST_F(OrtWebTest, CompareTakesOneModelOnTheNativeAndTheWebBuild) {
  CliResult r = run_cli("compare " + shell_quote(path("mobilenet_v2.onnx")) +
                            " -B onnxruntime -B ortweb --turns 6 --turn-iterations 3 --duration 0.2 --warmup-ms 20 "
                            "--threads 1 -q --json",
                        dir_->string());
  ASSERT_EQ(r.rc, 0) << r.err;
  const json c = json::parse(r.out);
  EXPECT_NE(c.dump().find("onnxruntime-node"), std::string::npos);
  EXPECT_NE(c.dump().find("onnxruntime-web"), std::string::npos);
  ASSERT_FALSE(c["items"].empty());
  EXPECT_FALSE(c["items"][0]["layers"].empty()) << c["items"][0];
  // The web build is slower, and one cause its figures show is WebAssembly's lower compute roof (SIMD128 against the
  // CPU's own vector instructions), each side's layers placed on the roofs of what it ran in.
  bool ceiling = false;
  for (const auto& why : c["items"][0].value("why_slower", json::array()))
    ceiling |= why.get<std::string>().find("wasm:node's own") != std::string::npos;
  EXPECT_TRUE(ceiling) << c["items"][0].value("why_slower", json::array());
  // Two runtimes take one model; two models take one runtime.
  r = run_cli("compare " + shell_quote(path("mobilenet_v2.onnx")) + " -B onnxruntime", dir_->string());
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("two runtimes"), std::string::npos) << r.err;
}

// WebAssembly's roofs cached low (measured while other work ran, as the suite's first profile measures them): a web
// layer above them has them measured again in its host, the higher figures become the report's and the cache's, and
// every layer is placed again on them. The cached figures are made 20x lower here; the native roofs are left alone.
TEST_F(OrtWebTest, ALayerAboveLowCachedWebAssemblyRoofsHasThemMeasuredAgain) {
  const fs::path cache = *dir_ / "low-wasm-roofs";
  const std::string env = "XDG_CACHE_HOME=" + shell_quote(cache.string()) + " ";
  const std::string model = shell_quote(path("mobilenet_v2.onnx"));
  // The roofs the suite has cached so far, so that only what is missing is measured (a minute on 2 cores otherwise).
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const fs::path suite_cache = (xdg && *xdg ? fs::path(xdg) : fs::path(std::getenv("HOME")) / ".cache") / "rooflens";
  fs::create_directories(cache / "rooflens");
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(suite_cache, ec))
    if (f.path().filename().string().rfind("hw-", 0) == 0) fs::copy_file(f.path(), cache / "rooflens" / f.path().filename());
  CliResult r = run_cli_env(env, "profile " + model + " --no-layers -B ortweb -q", dir_->string());
  ASSERT_EQ(r.rc, 0) << r.err;  // measures and caches the native roofs and WebAssembly's in Node
  int lowered = 0;
  std::map<std::string, double> low;
  for (const auto& f : fs::directory_iterator(cache / "rooflens")) {
    json h = json::parse(slurp(f.path().string()));
    if (h.value("cache_key", "").find("|engine wasm:node") == std::string::npos) continue;
    for (json& e : h["engines"]) {
      for (json& m : e["memory"]) m["gbps"] = m["gbps"].get<double>() / 20;
      for (json& p : e["sweep"]) p["gbps"] = p["gbps"].get<double>() / 20;
      for (json& c : e["compute"]) {
        c["gflops"] = c["gflops"].get<double>() / 20;
        low[c["name"].get<std::string>() + " x" + c["threads"].dump()] = c["gflops"].get<double>();
      }
    }
    std::ofstream(f.path()) << h.dump();
    ++lowered;
  }
  ASSERT_GE(lowered, 1) << "no cached roofs of wasm:node in " << cache;

  const std::string out = path("low-roofs.json");
  r = run_cli_env(env, "profile " + model + kQuickProfile + "-B ortweb -o " + shell_quote(out),
                  dir_->string());
  ASSERT_EQ(r.rc, 0) << r.err;
  const json rep = json::parse(slurp(out));
  // Every layer placed again on the raised roofs: against the twentieth, the busiest were at several times their roof.
  // (This test shares the CPUs with others, so roofs measured now may come out somewhat low: that no layer at all is
  // above its roof is the timed tests' check, OrtWebTest.AZoo* and TheChromium*.)
  for (const auto& l : rep["runs"][0]["layers"])
    EXPECT_LT(l.value("efficiency", 0.0), 2.0) << l["name"] << " is still placed on the lowered roofs";
  const json& engine = rep["hardware"]["engines"].at(0);
  const json& fp32 = engine["compute"].at(0);
  const std::string key = fp32["name"].get<std::string>() + " x" + fp32["threads"].dump();
  EXPECT_GT(fp32["gflops"].get<double>(), 5 * low[key]) << key;
  bool noted = false;
  for (const auto& n : engine["notes"]) noted |= n.get<std::string>().find("measured again after a layer") != std::string::npos;
  EXPECT_TRUE(noted) << engine["notes"];
  // The raised roofs are the cache's now (beside the lowered ones of other machine classes the suite's cache held).
  bool cached = false;
  for (const auto& f : fs::directory_iterator(cache / "rooflens")) {
    const json h = json::parse(slurp(f.path().string()));
    if (h.value("cache_key", "").find("|engine wasm:node") == std::string::npos) continue;
    for (const auto& c : h["engines"].at(0)["compute"])
      cached |= c["name"] == fp32["name"] && c["threads"] == fp32["threads"] && c["gflops"] == fp32["gflops"];
  }
  EXPECT_TRUE(cached) << "the raised roofs of wasm:node were not cached";
}

// The threads a run is labelled with are the ones the WebAssembly module ran, read back after the inference session
// was created (tests/runners/web_threads.test.mjs: a Node without SharedArrayBuffer runs 1 whatever was asked).
TEST_F(OrtWebTest, ThreadsAreReadBackFromTheWebAssemblyModule) {
  const json rep = profile(path("mobilenet_v2.onnx"), " --no-layers", "ortweb");  // read back at load
  ASSERT_FALSE(rep.is_null());
  EXPECT_EQ(rep["runs"][0]["threads"], 2);
  bool labelled = false;
  for (const auto& s : rep["runs"][0]["settings"])
    if (s["name"] == "intra_op_threads") {
      EXPECT_EQ(s["value"], "2");
      EXPECT_NE(s["note"].get<std::string>().find("read back from ONNX Runtime Web"), std::string::npos) << s;
      labelled = true;
    }
  EXPECT_TRUE(labelled) << rep["runs"][0]["settings"];
}

TEST_F(OrtWebTest, OptionsTheWebBuildCannotHonourAreRefused) {
  CliResult r = run_cli("profile " + shell_quote(path("mobilenet_v2.onnx")) + kQuickProfile + "-B ortweb:simd=false",
                        dir_->string());
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("ships only SIMD builds"), std::string::npos) << r.err;
  r = run_cli("profile " + shell_quote(path("mobilenet_v2.onnx")) + kQuickProfile +
                  "-B ortweb:mallocMmapThreshold=131072",
              dir_->string());
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("WebAssembly memory"), std::string::npos) << r.err;
}

// A model whose inference session cannot fit in WebAssembly's 4 GiB is refused before loading, in one line with the
// arithmetic, in every host: 5 GiB of weights in a sparse side file (no disk, no memory, no minutes of loading).
TEST_F(OrtWebTest, AModelLargerThanWebAssemblyMemoryIsRefusedBeforeLoading) {
  const fs::path big_dir = *dir_ / "big";
  fs::create_directories(big_dir);
  const fs::path model = big_dir / "big.onnx";
  rooflens::testing::sparse_external_weight_model(model.string(), int64_t{5} << 28);
  for (const std::string b : {"ortweb", "ortweb:host=chromium"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const CliResult r = run_cli("profile " + shell_quote(model.string()) + kQuickProfile + "-B " + b, dir_->string());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // The configuration's failure, in the report's failures (nothing else was lost: there was nothing else).
    const std::string said = r.out + r.err;
    EXPECT_EQ(r.rc, 1) << b << said;
    EXPECT_NE(said.find("[load, error]"), std::string::npos) << b << said;
    EXPECT_NE(said.find("too large for ONNX Runtime Web"), std::string::npos) << b << said;
    EXPECT_NE(said.find("at least 5.00 GiB of WebAssembly memory"), std::string::npos) << b << said;
    EXPECT_NE(said.find("at most 4 GiB"), std::string::npos) << b << said;
    EXPECT_LT(s, 120) << b << ": refused only after " << s << " s";
  }
  // capacity's serving instances load their own runners, bench its zoo's: the same refusal, before loading.
  for (const std::string& cmd : {"capacity " + shell_quote(model.string()) + " --scenario offline --instances 1 "
                                    "--threads 1 -q --no-db -B ortweb",
                                "bench " + shell_quote(model.string()) + " -B ortweb -q --no-db --overwrite -o " +
                                    shell_quote((big_dir / "bench-results").string())}) {
    const CliResult r = run_cli(cmd, dir_->string());
    const std::string said = r.out + r.err;
    EXPECT_NE(r.rc, 0) << cmd << said;
    EXPECT_NE(said.find("too large for ONNX Runtime Web"), std::string::npos) << cmd << said;
  }
}

// generate on the web build, in Node and in the Chromium page: both phases profiled with every kernel mapped (the
// native build's executed graph stands in for the web build's, as for profile), their layers held against the
// WebAssembly roofs and none above them, the memory measured only and said so (the renderer's in Chromium), and the same
// greedy tokens from the same WebAssembly kernels in both hosts. A page without cross-origin isolation ran one thread,
// and the run says so, not the two asked for.
TEST_F(OrtWebTest, GenerateRunsADecoderInNodeAndInThePage) {
  const std::string model = path("llama-kv.onnx");
  if (!fs::exists(model)) {
    rooflens::zoo::ZooOptions o;
    o.kv_cache = true;
    o.decoder = {2, 256, 4, 4, 512, 256};
    save_zoo_model("llama", o, model);
  }
  auto generate = [&](const std::string& backend, const std::string& flags = "") {
    const std::string out = path("generate.json");
    const CliResult r = run_cli("generate " + shell_quote(model) + " --prompt 16 --gen 8 --threads 2 --requests 3 "
                                "--warmup 1 -q --no-db -B " + backend + flags + " -o " + shell_quote(out),
                                dir_->string());
    EXPECT_EQ(r.rc, 0) << backend << r.err << r.out;
    return r.rc == 0 ? json::parse(slurp(out))["generation"]["runs"][0] : json();
  };
  std::vector<std::string> backends = {"ortweb"};
  if (chromium_installed()) backends.push_back("ortweb:host=chromium");
  std::map<std::string, json> tokens;
  for (const auto& b : backends) {
    SCOPED_TRACE(b);
    const json run = generate(b);
    ASSERT_FALSE(run.is_null());
    EXPECT_EQ(run["threads"], 2);
    EXPECT_EQ(run["ttft_samples_ms"].size(), 3u);
    EXPECT_EQ(run["tpot_samples_ms"].size(), 3u * 8u);
    ASSERT_EQ(run["phases"].size(), 2u);
    const std::string engine = b == "ortweb" ? "wasm:node" : "wasm:chromium";
    for (const auto& ph : run["phases"]) {
      SCOPED_TRACE(ph["phase"].get<std::string>());
      EXPECT_EQ(ph["unmapped_kernels"], 0) << ph["warnings"];
      EXPECT_GT(ph["coverage"].get<double>(), 0.5);
      EXPECT_LE(ph["coverage"].get<double>(), 1.02);
      EXPECT_EQ(ph.value("roofs_engine", ""), engine);
      for (const auto& l : ph["layers"]) {
        EXPECT_LE(l.value("efficiency", 0.0), 1.10) << l["name"] << " above its roof";
        // The same layer against a lower ceiling: its share of what WebAssembly allows is at least its share of
        // what the CPU allows (where a native memory roof measured below WebAssembly's, the latter is the CPU's too).
        EXPECT_GE(l.value("efficiency", 0.0) * 1.0001 + 1e-12, l.value("cpu_efficiency", 0.0))
            << l["name"] << ": the WebAssembly roof is above the CPU's";
      }
    }
    EXPECT_EQ(run["dram_roof"].get<std::string>().rfind(engine + " DRAM", 0), 0u) << run["dram_roof"];
    const json& m = run["memory"];
    EXPECT_NE(m.value("not_predicted", "").find("WebAssembly"), std::string::npos) << m;
    EXPECT_EQ(m["predicted_bytes"], 0);
    EXPECT_EQ(m["prefill_activations_bytes"], 0);
    EXPECT_GT(m["weights_bytes"].get<uint64_t>(), 5'000'000u);
    // The memory generation held at least the weights, whichever process the model ran in.
    EXPECT_GT(m["decode_collected_bytes"].get<uint64_t>(), m["weights_bytes"].get<uint64_t>());
    ASSERT_EQ(run["tokens"].size(), 9u);  // the prefill's token, then one per decode step
    tokens[b] = run["tokens"];
    // ORT Web's profiler works inside the kernels' spans: a decode step's ~100 small kernels add up to several times
    // the step run plain (10x on a Zen 5 guest), and the run says so rather than leaving the layers to read as TPOT.
    bool inflated = false;
    for (const auto& w : run["warnings"])
      inflated = inflated || w.get<std::string>().rfind("decode: the layers add up to", 0) == 0;
    EXPECT_TRUE(inflated) << run["warnings"];
  }
  if (tokens.size() == 2) {
    EXPECT_EQ(tokens["ortweb"], tokens["ortweb:host=chromium"]);
  }
  if (!chromium_installed()) GTEST_SKIP() << "Chromium or playwright-core missing: apt-get install chromium; make deps";

  // The threads are read back at load, the tokens come from the timed requests: no profiled phases needed.
  const json lone = generate("ortweb:host=chromium,isolation=off", " --no-layers");
  ASSERT_FALSE(lone.is_null());
  EXPECT_EQ(lone["threads"], 1);
  bool said = false;
  for (const auto& w : lone["warnings"])
    said = said || w.get<std::string>().find("2 threads asked for; the runtime ran 1") != std::string::npos;
  EXPECT_TRUE(said) << lone["warnings"];
  EXPECT_EQ(lone["tokens"], tokens["ortweb:host=chromium"]);

  // Serving stays the Node host's: capacity on the page is one usage line before anything starts.
  const CliResult served = run_cli("capacity " + shell_quote(model) + " --scenario server --qps 2 --instances 1 -q "
                                   "--no-db -B ortweb:host=chromium", dir_->string());
  EXPECT_EQ(served.rc, 2) << served.err;
  EXPECT_NE(served.err.find("cannot serve queries to a capacity run (a Chromium page serves one user"),
            std::string::npos) << served.err;
}

// The settings a web run prints are the WebAssembly module's: its execution provider, unpinned workers, its own heap.
TEST_F(OrtWebTest, TheSettingsDescribeTheWebAssemblyModule) {
  const json rep = profile(path("mobilenet_v2.onnx"), " --no-layers", "ortweb");  // the settings are load's
  ASSERT_FALSE(rep.is_null());
  std::map<std::string, std::string> value;
  for (const auto& s : rep["runs"][0]["settings"]) value[s["name"].get<std::string>()] = s["value"].get<std::string>();
  EXPECT_EQ(value["device"], "wasm");
  EXPECT_EQ(value["c_allocator"], "the WebAssembly module's malloc");
  EXPECT_EQ(value["affinity"], "unpinned");
}

}  // namespace
