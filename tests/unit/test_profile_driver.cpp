// The profile driver around a backend: a configuration whose profiled run fails keeps its end-to-end figures
// (a result of their own) and says why its layers are missing; the field survives the JSON round trip and
// older reports without it still load. --repeat: the grid round-robin, the runs merged, a later run's failure.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "backends/backend.h"
#include "core/report.h"
#include "hw/raise_roofs.h"
#include "profile/profile.h"
#include "support/onnx_builder.h"
#include "support/backend_info.h"

using namespace rooflens;
using namespace rooflens::testing;
namespace fs = std::filesystem;

namespace {

// A backend whose timed run succeeds and whose profiled run the runtime refused.
class ProfileRefusedBackend : public Backend {
 public:
  BackendInfo info() const override { return {"fake", "1", {}, "fake runtime", "fake", ""}; }
  int64_t threads_for(int64_t requested) const override { return requested; }
  const MappingRules& mapping_rules() const override { return plain_mapping_rules(); }
  Measurement run(const RunSpec&) override {
    Measurement r;
    r.latencies_ms = {2.0, 2.5, 3.0};
    r.wall_s = 0.0075;
    r.stop_reason = "min_reached";
    r.profile_error = "m.onnx: cannot parse ORT profile x.json";
    return r;
  }
  void abort() override {}
};

std::string relu_model() {
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 8});
  add_node(g, "Relu", {"x"}, {"y"}, "relu");
  add_value(g->mutable_output(), "y", {1, 8});
  std::string path = (fs::temp_directory_path() / ("rooflens-driver-" + std::to_string(::getpid()) + ".onnx")).string();
  save(m, path);
  return path;
}

}  // namespace

TEST(ProfileDriver, AFailedProfiledRunKeepsTheEndToEndFiguresAndSaysWhy) {
  std::string model = relu_model();
  ProfileOptions o;
  o.model = model;
  ProfileRefusedBackend backend;
  Report r = run_profile(o, {&backend}, nullptr, {});
  fs::remove(model);

  EXPECT_TRUE(r.failures.empty());
  ASSERT_EQ(r.runs.size(), 1u);
  const ProfileRun& run = r.runs[0];
  EXPECT_EQ(run.latency_ms.n, 3);
  EXPECT_DOUBLE_EQ(run.latency_ms.median, 2.5);
  EXPECT_TRUE(run.layers.empty());
  EXPECT_EQ(run.layers_error, "m.onnx: cannot parse ORT profile x.json");
  bool warned = false;
  for (const auto& w : run.warnings) warned |= w.find("no layer times") != std::string::npos;
  EXPECT_TRUE(warned);

  std::string text = report_to_json(r);
  EXPECT_NE(text.find("\"layers_error\""), std::string::npos);
  EXPECT_EQ(report_to_json(report_from_json(text)), text);
}

TEST(ProfileDriver, ReportsWithoutLayersErrorStillLoad) {
  Report r;
  r.backends = {rooflens::testing::backend_info("onnxruntime", "1.30.0", {}, "x")};
  r.runs.emplace_back();
  std::string text = report_to_json(r);
  EXPECT_EQ(text.find("\"layers_error\""), std::string::npos);  // written only when set
  Report back = report_from_json(text);
  ASSERT_EQ(back.runs.size(), 1u);
  EXPECT_TRUE(back.runs[0].layers_error.empty());
  EXPECT_EQ(report_to_json(back), text);
}

namespace {

// Records what the driver asks for; call `fail_at` (0-based) dies as a crashed runner would.
class RecordingBackend : public Backend {
 public:
  explicit RecordingBackend(int fail_at = -1, std::string name = "fake") : fail_at_(fail_at), name_(std::move(name)) {}
  BackendInfo info() const override { return {name_, "1", {}, name_ + " runtime", name_, ""}; }
  int64_t threads_for(int64_t requested) const override { return requested > 0 ? requested : 4; }
  const MappingRules& mapping_rules() const override { return plain_mapping_rules(); }
  Measurement run(const RunSpec& c) override {
    const int call = static_cast<int>(calls.size());
    calls.push_back({static_cast<int>(c.key.threads), c.timing.layers});
    if (call == fail_at_) throw BackendError("run", "died", "runner killed by SIGKILL", "tail");
    Measurement r;
    r.latencies_ms = {10.0 + call, 10.5 + call};
    r.wall_s = 0.25;
    r.stop_reason = call == 2 ? "max_iterations" : "min_reached";
    r.peak_rss_bytes = 1000u + static_cast<uint64_t>(call);
    return r;
  }
  void abort() override {}
  std::vector<std::pair<int, bool>> calls;  // threads, profiled run asked for

 private:
  int fail_at_;
  std::string name_;
};

}  // namespace

// --repeat 3 over threads=1,2: round-robin (1, 2, 1, 2, 1, 2), the profiled run asked for once per configuration,
// the runs merged in order with their partition, walls summed, the highest peak, distinct stop reasons.
TEST(ProfileDriver, RepeatRunsTheGridRoundRobinAndMergesTheRuns) {
  std::string model = relu_model();
  ProfileOptions o;
  o.model = model;
  o.sweeps = {parse_sweep("threads=1,2")};
  o.repeat = 3;
  RecordingBackend backend;
  Report r = run_profile(o, {&backend}, nullptr, {});
  EXPECT_EQ(backend.calls, (std::vector<std::pair<int, bool>>{{1, true}, {2, true}, {1, false}, {2, false},
                                                             {1, false}, {2, false}}));
  ASSERT_EQ(r.runs.size(), 2u);
  const ProfileRun& one = r.runs[0];
  EXPECT_EQ(one.threads, 1);
  EXPECT_EQ(one.latencies_ms, (std::vector<double>{10, 10.5, 12, 12.5, 14, 14.5}));  // calls 0, 2, 4
  EXPECT_EQ(one.repetitions, (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(one.latency_ms.n, 6);
  EXPECT_DOUBLE_EQ(one.latency_ms.median, 12.25);
  EXPECT_DOUBLE_EQ(one.wall_s, 0.75);
  EXPECT_DOUBLE_EQ(one.throughput_per_s, 6 / 0.75);
  EXPECT_EQ(one.peak_rss_bytes, 1004u);
  EXPECT_EQ(one.stop_reason, "min_reached,max_iterations");
  EXPECT_EQ(r.runs[1].latencies_ms.front(), 11);  // call 1
  // The runs' medians 10.25, 12.25, 14.25 lie far apart next to the samples' own scatter: a warning says so.
  bool warned = false;
  for (const auto& w : one.warnings) warned |= w.rfind("run-to-run: the medians of the 3 runs span 10.250-14.250 ms", 0) == 0;
  EXPECT_TRUE(warned) << ::testing::PrintToString(one.warnings);

  // The second configuration's second run dies: recorded as its failure, its first run stays, no third run.
  RecordingBackend dying(3);
  Report d = run_profile(o, {&dying}, nullptr, {});
  fs::remove(model);
  EXPECT_EQ(dying.calls.size(), 5u);
  ASSERT_EQ(d.failures.size(), 1u);
  EXPECT_EQ(d.failures[0].message, "run 2 of 3: runner killed by SIGKILL");
  EXPECT_EQ(d.failures[0].kind, "died");
  EXPECT_EQ(d.failures[0].threads, 2);
  ASSERT_EQ(d.runs.size(), 2u);
  EXPECT_EQ(d.runs[0].repetitions.size(), 3u);
  EXPECT_EQ(d.runs[1].repetitions, (std::vector<int64_t>{2}));
  EXPECT_FALSE(d.partial);
}

// Two backends in one report (-B a -B b): their runs interleave round by round, each run names its backend, the
// labels say which, and a backend's default thread count is what its runs record.
TEST(ProfileDriver, TwoBackendsInterleaveAndNameTheirRuns) {
  std::string model = relu_model();
  ProfileOptions o;
  o.model = model;
  o.backends = {parse_backend_spec("fake"), parse_backend_spec("other")};
  o.repeat = 2;
  RecordingBackend a(-1, "fake"), b(-1, "other");
  std::vector<Backend*> both{&a, &b};
  Report r = run_profile(o, both, nullptr, {});
  fs::remove(model);
  ASSERT_EQ(r.backends.size(), 2u);
  EXPECT_EQ(r.backends[0].label, "fake");
  EXPECT_EQ(r.backends[1].label, "other");
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].backend, "fake");
  EXPECT_EQ(r.runs[1].backend, "other");
  EXPECT_EQ(r.runs[0].threads, 4);  // the fake backends' default
  EXPECT_EQ(r.runs[0].label(), "fake · batch=1 threads=4");
  EXPECT_EQ(r.runs[1].label(), "other · batch=1 threads=4");
  EXPECT_EQ(a.calls.size(), 2u);
  EXPECT_EQ(b.calls.size(), 2u);
  EXPECT_EQ(r.runs[0].repetitions.size(), 2u);
  // The labels travel in the JSON (for the HTML page), and the key round-trips.
  std::string text = report_to_json(r);
  EXPECT_NE(text.find("\"label\": \"other · batch=1 threads=4\""), std::string::npos);
  Report back = report_from_json(text);
  EXPECT_EQ(back.runs[1].key(), r.runs[1].key());
  EXPECT_EQ(report_to_json(back), text);
}

// Two configurations of one backend are told apart by their -B text.
TEST(ProfileDriver, TwoConfigurationsOfOneBackendAreLabelledByTheirText) {
  std::string model = relu_model();
  ProfileOptions o;
  o.model = model;
  o.backends = {parse_backend_spec("fake:opt=all"), parse_backend_spec("fake:opt=basic")};
  RecordingBackend a, b;
  Report r = run_profile(o, {&a, &b}, nullptr, {});
  fs::remove(model);
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].backend, "fake:opt=all");
  EXPECT_EQ(r.runs[1].backend, "fake:opt=basic");
}

namespace {

// A web build's backend: its one kernel (a 64 MiB Relu in 5 ms, 26.8 GB/s) ran in WebAssembly, whose roofs come from
// measure_engine_roofs: `measured` in turn, one per call.
class WebBackend : public Backend {
 public:
  BackendInfo info() const override { return {"web", "1", {}, "web runtime", "web", ""}; }
  int64_t threads_for(int64_t) const override { return 1; }
  const MappingRules& mapping_rules() const override { return plain_mapping_rules(); }
  Measurement run(const RunSpec&) override {
    Measurement r;
    r.latencies_ms = {5.0, 5.0, 5.0};
    r.profiled_runs_ms = {5.0};
    r.wall_s = 0.015;
    r.stop_reason = "min_reached";
    r.threads = 1;
    r.roofs_engine = "wasm:node";
    KernelRecord k;
    k.name = k.onnx_nodes.emplace_back("relu");
    k.op = "Relu";
    k.per_iteration_ms = {5.0};
    r.kernels = {k};
    return r;
  }
  std::optional<EngineRoofs> measure_engine_roofs(bool) override {
    ++measured;
    return engine(measured == 1 ? 10 : 30);
  }
  void abort() override {}
  static EngineRoofs engine(double dram_gbps) {
    EngineRoofs e;
    e.engine = "wasm:node";
    e.compute = {{"fp32_muladd_wasm_simd128", "wasm_simd128", "fp32", 1, 40}};
    e.memory = {{"DRAM", "read", 1, dram_gbps, 512 * 1024 * 1024}};
    e.sweep = {{"read", 1, 512 * 1024 * 1024, dram_gbps}};
    return e;
  }
  int measured = 0;
};

}  // namespace

// A web layer above the roofs of the engine it ran in (WebAssembly's, measured in a busy moment): those roofs are
// measured again — not the machine's native ones — the higher figure becomes the report's, and the layer is placed
// against it. The recheck runs once per engine.
TEST(ProfileDriver, AWebLayerAboveItsEnginesRoofsHasThoseRoofsMeasuredAgain) {
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 16 * 1024 * 1024});
  add_node(g, "Relu", {"x"}, {"y"}, "relu");
  add_value(g->mutable_output(), "y", {1, 16 * 1024 * 1024});
  const std::string model = (fs::temp_directory_path() / ("rooflens-web-" + std::to_string(::getpid()) + ".onnx")).string();
  save(m, model);
  HardwareInfo hw;
  hw.machine.cores = hw.machine.threads = 1;
  hw.machine.caches = {{"L1d", 32 * 1024, 1, 1}, {"L3", 32 * 1024 * 1024, 1, 1}};
  hw.compute = {{"fp32_fma_avx2", "avx2", "fp32", 1, 100}};
  hw.memory = {{"DRAM", "read", 1, 40, 512 * 1024 * 1024}};
  WebBackend backend;
  ProfileHooks hooks;
  hooks.engine_roofs = [](const std::string&, const std::string&, const std::function<std::optional<EngineRoofs>()>& f) {
    return f();
  };
  int native_rechecks = 0, engine_rechecks = 0;
  hooks.recheck_roofs = [&](const HardwareInfo&, const ProfileRun&) {
    ++native_rechecks;
    return std::optional<HardwareInfo>{};
  };
  hooks.recheck_engine_roofs = [&](const EngineRoofs& have, const std::string& runtime, const ProfileRun& run,
                                   const std::function<std::optional<EngineRoofs>()>& measure) {
    ++engine_rechecks;
    EXPECT_EQ(have.memory.at(0).gbps, 10);
    EXPECT_EQ(runtime, "web runtime");
    EXPECT_FALSE(run.layers.at(0).attribution_error.empty());  // 26.8 GB/s against 10
    // Its one level, found again on the raised sweep.
    return hw::raise_engine_roofs(have, *measure(), [](EngineRoofs& e) { e.memory[0].gbps = e.sweep.at(0).gbps; });
  };
  ProfileOptions o;
  o.model = model;
  Report r = run_profile(o, {&backend}, &hw, hooks);
  fs::remove(model);
  EXPECT_EQ(native_rechecks, 0);
  EXPECT_EQ(engine_rechecks, 1);
  EXPECT_EQ(backend.measured, 2);
  ASSERT_TRUE(r.hardware && r.hardware->engines.size() == 1);
  EXPECT_EQ(r.hardware->engines[0].memory.at(0).gbps, 30);
  EXPECT_EQ(r.hardware->memory.at(0).gbps, 40);  // the native roofs as they were
  ASSERT_EQ(r.runs.size(), 1u);
  const Layer& l = r.runs[0].layers.at(0);
  EXPECT_TRUE(l.attribution_error.empty()) << l.attribution_error;
  EXPECT_NEAR(l.efficiency, 134217728 / 5e-3 / 1e9 / 30, 1e-6);
  for (const std::string& w : r.runs[0].warnings) EXPECT_EQ(w.find("above"), std::string::npos) << w;
}
