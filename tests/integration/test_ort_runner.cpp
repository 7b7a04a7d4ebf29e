// The ONNX Runtime runner with real ORT (onnxruntime-node) on real models: the typed API, profiling in
// private temp dirs, ORT refusing a model, a runner killed mid-message, timeouts, two runners at once.
// Skips (with the reason) only when runners/ort/node_modules is missing; `make test` installs it.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <onnx/onnx_pb.h>

#include "backends/common/cpu_budget.h"
#include "backends/common/feeds.h"
#include "backends/onnxruntime/ort_runner.h"
#include "support/onnx_builder.h"
#include "zoo/registry.h"
#include "zoo/save.h"

namespace fs = std::filesystem;
using namespace rooflens;
using namespace rooflens::ort;
using namespace std::chrono_literals;

namespace {

const char* kTestData = "/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d";

class OrtRunnerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("rooflens-ort-test-" + std::to_string(::getpid())));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_);
    try {
      script_ok_ = runner_dependencies_installed(locate_runner_script());
    } catch (const UserError&) {
      script_ok_ = false;
    }
    if (!script_ok_) return;
    // SqueezeNet 1.0 (1.2 M parameters) at 96x96 with a symbolic batch dim: a real CNN with Concat branches,
    // fast enough to keep this suite short on a loaded 2-core machine.
    zoo::ZooOptions o;
    o.image = 96;
    auto built = zoo::make_model(zoo::find_model("squeezenet1_0"), o);
    zoo::save_model(built.model, model_path(), false);
  }
  static void TearDownTestSuite() {
    if (!getenv("KEEP")) fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    if (!script_ok_) {
      GTEST_SKIP() << "onnxruntime-node is not installed (runners/ort/node_modules missing): run "
                      "`npm ci --ignore-scripts` in runners/ort (make deps does)";
    }
  }

  static fs::path model_path() { return *dir_ / "squeezenet.onnx"; }
  static Inputs batch(int64_t n) {
    Inputs in;
    in.dims["batch"] = n;
    return in;
  }
  static OrtSessionOptions two_threads() {
    OrtSessionOptions o;
    o.intraOpNumThreads = 2;
    o.graphOptimizationLevel = "all";
    return o;
  }
  static TimingOptions quick(int iterations) {
    TimingOptions t;
    t.warmup_iterations = 2;
    t.warmup_ms = 0;
    t.iterations = iterations;
    t.duration_s = 0;
    return t;
  }
  static constexpr std::chrono::milliseconds kTimeout = 60s;

  static inline fs::path* dir_ = nullptr;
  static inline bool script_ok_ = false;
};

template <class F>
RunnerError expect_runner_error(F&& f) {
  try {
    f();
  } catch (const RunnerError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a RunnerError";
  return RunnerError(ReplyStatus::ok, "", "", "");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

TEST_F(OrtRunnerTest, HelloReportsVersions) {
  OrtRunner r;
  EXPECT_EQ(r.onnxruntime_version(), "1.30.0");
  EXPECT_FALSE(r.node_version().empty());
  EXPECT_EQ(r.hello()["protocol"], 1);
  EXPECT_GT(r.process().pid(), 0);
}

TEST_F(OrtRunnerTest, LoadReportsMetadataAndDumpsOptimizedGraph) {
  OrtRunner r;
  auto opts = two_threads();
  opts.optimizedModelFilePath = *dir_ / "squeezenet.opt.onnx";
  LoadResult info = r.load(model_path(), opts);
  ASSERT_EQ(info.inputs.size(), 1u);
  EXPECT_EQ(info.inputs[0].dtype, "float32");
  ASSERT_EQ(info.inputs[0].dims.size(), 4u);
  EXPECT_EQ(std::get<std::string>(info.inputs[0].dims[0]), "batch");
  EXPECT_EQ(std::get<int64_t>(info.inputs[0].dims[1]), 3);
  EXPECT_EQ(std::get<int64_t>(info.inputs[0].dims[3]), 96);
  ASSERT_EQ(info.outputs.size(), 1u);
  ASSERT_TRUE(info.optimized_model.has_value());
  EXPECT_TRUE(fs::is_regular_file(*info.optimized_model));
  EXPECT_GT(info.load_ms, 0);
  EXPECT_GT(info.peak_rss_bytes, 10u << 20);
}

TEST_F(OrtRunnerTest, RunTimedReturnsRequestedIterations) {
  OrtRunner r;
  r.load(model_path(), two_threads());
  TimedRunResult t = r.run_timed(batch(1), quick(20), kTimeout);
  ASSERT_EQ(t.latencies_ms.size(), 20u);
  for (double ms : t.latencies_ms) EXPECT_GT(ms, 0);
  double sum = 0;
  for (double ms : t.latencies_ms) sum += ms;
  EXPECT_GE(t.wall_s * 1000, sum * 0.999);
  EXPECT_LT(t.wall_s * 1000, sum * 1.5 + 50);
  EXPECT_GE(t.warmup_iterations, 2);
  EXPECT_EQ(t.stop_reason, "min_reached");
  EXPECT_GT(t.peak_rss_bytes, 10u << 20);
  EXPECT_FALSE(t.median_ci_ms.has_value());
  std::printf("[ measured ] squeezenet1_0 96x96 batch 1, 2 threads: p50 %.3f ms over %zu runs, peak RSS %.1f MB\n",
              median(t.latencies_ms), t.latencies_ms.size(), t.peak_rss_bytes / 1048576.0);

  // Batch 4 through the symbolic dim.
  TimedRunResult t4 = r.run_timed(batch(4), quick(3), kTimeout);
  EXPECT_EQ(t4.latencies_ms.size(), 3u);
  std::printf("[ measured ] squeezenet1_0 batch 4: p50 %.3f ms\n", median(t4.latencies_ms));

  // Minimum duration: keeps going past the iteration count.
  auto d = quick(1);
  d.duration_s = 0.15;
  TimedRunResult td = r.run_timed(batch(1), d, kTimeout);
  EXPECT_GE(td.wall_s, 0.15);
  EXPECT_GT(td.latencies_ms.size(), 1u);
}

TEST_F(OrtRunnerTest, AdaptiveStopIsCapped) {
  OrtRunner r;
  r.load(model_path(), two_threads());
  auto o = quick(10);
  o.adaptive = true;
  o.max_iterations = 60;
  o.max_duration_s = 2;
  TimedRunResult t = r.run_timed(batch(1), o, kTimeout);
  EXPECT_GE(t.latencies_ms.size(), 10u);
  EXPECT_LE(t.latencies_ms.size(), 60u);
  std::set<std::string> reasons = {"ci_reached", "max_iterations", "max_duration"};
  EXPECT_TRUE(reasons.count(t.stop_reason)) << t.stop_reason;
  ASSERT_TRUE(t.median_ci_ms.has_value());
  double m = median(t.latencies_ms);
  EXPECT_LE(t.median_ci_ms->first, m);
  EXPECT_GE(t.median_ci_ms->second, m);
  if (t.stop_reason == "ci_reached") {
    EXPECT_GE(t.median_ci_ms->first, m * 0.99);
    EXPECT_LE(t.median_ci_ms->second, m * 1.01);
  }
}

TEST_F(OrtRunnerTest, UnresolvedSymbolicDimIsAnInputError) {
  OrtRunner r;
  r.load(model_path(), two_threads());
  RunnerError e = expect_runner_error([&] { r.run_timed(Inputs{}, quick(1), kTimeout); });
  EXPECT_EQ(e.kind, ReplyStatus::error);
  EXPECT_EQ(e.code, "input");
  std::string m = e.what();
  EXPECT_NE(m.find(model_path().string()), std::string::npos) << m;
  EXPECT_NE(m.find("'batch'"), std::string::npos) << m;
  EXPECT_EQ(r.run_timed(batch(1), quick(1), kTimeout).latencies_ms.size(), 1u);  // still usable
}

TEST_F(OrtRunnerTest, RunProfiledGivesKernelEventsOfMeasuredRuns) {
  OrtRunner r;
  auto opts = two_threads();
  opts.optimizedModelFilePath = *dir_ / "profiled.opt.onnx";
  r.load(model_path(), opts);
  TimingOptions p;
  p.warmup_iterations = 2;
  p.profile_iterations = 3;
  ProfiledRunResult res = r.run_profiled(batch(1), p, kTimeout, *dir_, true);

  ASSERT_EQ(res.profile.runs.size(), 5u);
  EXPECT_EQ(res.warmup_iterations, 2);
  EXPECT_EQ(res.run_latencies_ms.size(), 3u);
  EXPECT_EQ(res.warmup_latencies_ms.size(), 2u);
  ASSERT_TRUE(res.measured_from_ts_us.has_value());
  EXPECT_EQ(*res.measured_from_ts_us, res.profile.runs[2].ts_us);
  // The profiler's bookkeeping between two kernel events, calibrated in this runner before the profiled runs
  // (profiler_gap_native.mjs): microseconds a kernel (4-6 on a Zen 5 guest), far below a tenth of a millisecond.
  ASSERT_TRUE(res.profiler_gap_ms.has_value());
  EXPECT_GT(*res.profiler_gap_ms, 0.0);
  EXPECT_LT(*res.profiler_gap_ms, 0.1);

  // The profile lives in a private (0700) temp dir under tmp_dir, never at a fixed name.
  ASSERT_FALSE(res.profile_file.empty());
  EXPECT_TRUE(fs::is_regular_file(res.profile_file));
  fs::path pdir = res.profile_file.parent_path();
  EXPECT_EQ(pdir.parent_path(), *dir_);
  EXPECT_EQ(pdir.filename().string().rfind("rooflens-ort-prof-", 0), 0u) << pdir;
  struct stat st {};
  ASSERT_EQ(::stat(pdir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  // Kernel events: sensible op names / providers / node indices, the same kernels in every measured run,
  // and every kernel named after a node of the dumped optimized graph (the basis of layer mapping).
  onnx::ModelProto opt;
  {
    std::ifstream f(*dir_ / "profiled.opt.onnx", std::ios::binary);
    ASSERT_TRUE(opt.ParseFromIstream(&f));
  }
  std::set<std::string> opt_names;
  for (const auto& n : opt.graph().node()) opt_names.insert(n.name());

  auto measured = res.profile.kernel_events(res.warmup_iterations);
  ASSERT_FALSE(measured.empty());
  std::map<int, std::vector<int64_t>> per_run;
  std::set<std::string> ops;
  for (const auto* ev : measured) {
    EXPECT_GE(ev->run_index, 2);
    EXPECT_LT(ev->run_index, 5);
    EXPECT_GE(ev->node_index, 0) << ev->name;
    EXPECT_FALSE(ev->op_name.empty()) << ev->name;
    EXPECT_EQ(ev->provider, "CPUExecutionProvider") << ev->name;
    EXPECT_GE(ev->dur_us, 0);
    EXPECT_TRUE(opt_names.count(ev->node_name)) << ev->node_name << " is not in the optimized graph";
    EXPECT_FALSE(ev->output_type_shape.empty()) << ev->name;
    per_run[ev->run_index].push_back(ev->node_index);
    ops.insert(ev->op_name);
  }
  ASSERT_EQ(per_run.size(), 3u);
  EXPECT_EQ(per_run[2], per_run[3]);
  EXPECT_EQ(per_run[3], per_run[4]);
  EXPECT_TRUE(ops.count("Conv") || ops.count("FusedConv")) << "no convolution kernels";
  EXPECT_TRUE(ops.count("Concat")) << "SqueezeNet's fire modules concatenate";
  // Warm-up kernels exist but are separated out.
  EXPECT_GT(res.profile.kernel_events(0).size(), measured.size());
  std::printf("[ measured ] squeezenet1_0 profiled: %zu kernels per run, profiled p50 %.3f ms\n",
              per_run[2].size(), median(res.run_latencies_ms));

  // Without keep_profile the private dir is removed once parsed.
  auto count_dirs = [] {
    int n = 0;
    for (const auto& e : fs::directory_iterator(*dir_)) n += e.path().filename().string().rfind("rooflens-ort-prof-", 0) == 0;
    return n;
  };
  const int before = count_dirs();
  ProfiledRunResult gone = r.run_profiled(batch(1), p, kTimeout, *dir_, false);
  EXPECT_TRUE(gone.profile_file.empty());
  EXPECT_EQ(gone.profile.runs.size(), 5u);
  EXPECT_EQ(count_dirs(), before);
}

TEST_F(OrtRunnerTest, TwoRunnersAtOnceDoNotCollide) {
  OrtRunner a, b;
  EXPECT_NE(a.process().pid(), b.process().pid());
  a.load(model_path(), two_threads());
  b.load(model_path(), two_threads());
  TimingOptions p;
  p.warmup_iterations = 1;
  p.profile_iterations = 2;
  ProfiledRunResult ra, rb;
  std::thread ta([&] { ra = a.run_profiled(batch(1), p, kTimeout, *dir_, true); });
  std::thread tb([&] { rb = b.run_profiled(batch(1), p, kTimeout, *dir_, true); });
  ta.join();
  tb.join();
  ASSERT_FALSE(ra.profile_file.empty());
  ASSERT_FALSE(rb.profile_file.empty());
  EXPECT_NE(ra.profile_file.parent_path(), rb.profile_file.parent_path());
  EXPECT_EQ(ra.profile.runs.size(), 3u);
  EXPECT_EQ(rb.profile.runs.size(), 3u);
  EXPECT_EQ(ra.profile.kernel_events(1).size(), rb.profile.kernel_events(1).size());
  EXPECT_NE(ra.profile.events[0].pid, rb.profile.events[0].pid);
}

TEST_F(OrtRunnerTest, RefusedModelCarriesOrtMessageAndRunnerStaysUsable) {
  onnx::ModelProto m = rooflens::testing::empty_model(17);
  auto* g = m.mutable_graph();
  rooflens::testing::add_value(g->mutable_input(), "x", {1, 4});
  rooflens::testing::add_value(g->mutable_output(), "y", {1, 4});
  rooflens::testing::add_node(g, "NoSuchOp", {"x"}, {"y"}, "mystery");
  fs::path bad = *dir_ / "unknown_op.onnx";
  rooflens::testing::save(m, bad.string());

  OrtRunner r;
  RunnerError e = expect_runner_error([&] { r.load(bad, {}); });
  EXPECT_EQ(e.kind, ReplyStatus::error);
  EXPECT_EQ(e.code, "ort");
  std::string msg = e.what();
  EXPECT_NE(msg.find(bad.string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("ONNX Runtime refused the model"), std::string::npos) << msg;
  EXPECT_NE(msg.find("NoSuchOp"), std::string::npos) << "ORT's own message expected: " << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;

  // A truncated file.
  fs::path trunc = *dir_ / "truncated.onnx";
  {
    std::ifstream in(model_path(), std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(trunc, std::ios::binary).write(data.data(), static_cast<std::streamsize>(data.size() / 3));
  }
  RunnerError t = expect_runner_error([&] { r.load(trunc, {}); });
  EXPECT_EQ(t.code, "ort");
  EXPECT_NE(std::string(t.what()).find(trunc.string()), std::string::npos) << t.what();

  // Bad messages are answered, not fatal.
  RunnerError u = expect_runner_error([&] {
    r.call({{"op", "load"}, {"model", model_path().string()}, {"options", {{"intraOpThreads", 2}}}}, 10s);
  });
  EXPECT_EQ(u.code, "bad_message");
  EXPECT_NE(std::string(u.what()).find("intraOpThreads"), std::string::npos);
  EXPECT_EQ(expect_runner_error([&] { r.call({{"op", "frobnicate"}}, 10s); }).code, "bad_message");

  r.load(model_path(), two_threads());
  EXPECT_EQ(r.run_timed(batch(1), quick(2), kTimeout).latencies_ms.size(), 2u);
}

TEST_F(OrtRunnerTest, RunnerKilledMidMessageIsReportedAndRestartWorks) {
  OrtRunner r;
  r.load(model_path(), two_threads());
  const pid_t pid = r.process().pid();
  std::thread killer([pid] {
    std::this_thread::sleep_for(400ms);
    ::kill(pid, SIGKILL);
  });
  auto o = quick(1000000);
  o.max_iterations = 1000000;
  o.duration_s = 20;
  auto t0 = std::chrono::steady_clock::now();
  RunnerError e = expect_runner_error([&] { r.run_timed(batch(1), o, kTimeout); });
  killer.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  EXPECT_EQ(e.kind, ReplyStatus::died);
  EXPECT_EQ(e.code, "died");
  std::string msg = e.what();
  EXPECT_NE(msg.find(model_path().string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("SIGKILL"), std::string::npos) << msg;
  EXPECT_NE(msg.find("run_timed"), std::string::npos) << msg;
  EXPECT_NE(e.stderr_tail.find("rooflens-ort-runner"), std::string::npos) << e.stderr_tail;
  EXPECT_FALSE(r.process().running());
  EXPECT_EQ(::kill(pid, 0), -1);  // reaped: no zombie left behind

  // Further messages say the runner is gone instead of hanging.
  EXPECT_EQ(expect_runner_error([&] { r.run_timed(batch(1), quick(1), kTimeout); }).kind, ReplyStatus::not_running);

  r.restart();
  EXPECT_NE(r.process().pid(), pid);
  r.load(model_path(), two_threads());
  EXPECT_EQ(r.run_timed(batch(1), quick(2), kTimeout).latencies_ms.size(), 2u);
}

TEST_F(OrtRunnerTest, TimeoutKillsTheRunner) {
  OrtRunner r;
  r.load(model_path(), two_threads());
  const pid_t pid = r.process().pid();
  auto o = quick(1000000);
  o.max_iterations = 1000000;
  auto t0 = std::chrono::steady_clock::now();
  RunnerError e = expect_runner_error([&] { r.run_timed(batch(1), o, 300ms); });
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_EQ(e.kind, ReplyStatus::timeout);
  std::string msg = e.what();
  EXPECT_NE(msg.find("did not answer 'run_timed' within 300 ms"), std::string::npos) << msg;
  EXPECT_NE(msg.find(model_path().string()), std::string::npos) << msg;
  EXPECT_FALSE(r.process().running());
  EXPECT_EQ(::kill(pid, 0), -1);

  // The documented debug message times out the same way.
  r.restart();
  RunnerError s = expect_runner_error([&] { r.call({{"op", "sleep"}, {"ms", 5000}}, 200ms); });
  EXPECT_EQ(s.kind, ReplyStatus::timeout);
  EXPECT_NE(s.stderr_tail.find("sleep 5000 ms"), std::string::npos) << s.stderr_tail;
  r.restart();
  EXPECT_EQ(r.call({{"op", "sleep"}, {"ms", 1}}, 10s)["slept_ms"], 1);
}

// Inputs from files: a libonnx-testdata case through test_data_dir (TensorProto parsing), the same tensor
// as .npy, and the outputs compared with the reference output_0.pb.
TEST_F(OrtRunnerTest, OutputsFromTestDataMatchReference) {
  if (!fs::is_directory(kTestData)) GTEST_SKIP() << kTestData << " missing (Debian package libonnx-testdata)";
  auto floats_of = [](const onnx::TensorProto& t) {
    std::vector<float> v;
    if (!t.raw_data().empty()) {
      v.resize(t.raw_data().size() / 4);
      std::memcpy(v.data(), t.raw_data().data(), v.size() * 4);
    } else {
      v.assign(t.float_data().begin(), t.float_data().end());
    }
    return v;
  };
  auto read_pb = [](const fs::path& p) {
    onnx::TensorProto t;
    std::ifstream f(p, std::ios::binary);
    EXPECT_TRUE(t.ParseFromIstream(&f)) << p;
    return t;
  };
  onnx::TensorProto ref = read_pb(fs::path(kTestData) / "test_data_set_0" / "output_0.pb");
  std::vector<float> expected = floats_of(ref);

  OrtRunner r;
  LoadResult info = r.load(fs::path(kTestData) / "model.onnx", {});
  ASSERT_EQ(info.inputs.size(), 1u);
  auto check = [&](const std::vector<TensorData>& outs) {
    ASSERT_EQ(outs.size(), 1u);
    EXPECT_EQ(outs[0].dtype, "float32");
    EXPECT_EQ(outs[0].dims, std::vector<int64_t>(ref.dims().begin(), ref.dims().end()));
    ASSERT_EQ(outs[0].bytes.size(), expected.size() * 4);
    std::vector<float> got(expected.size());
    std::memcpy(got.data(), outs[0].bytes.data(), outs[0].bytes.size());
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], expected[i], 1e-4) << i;
  };
  Inputs in;
  in.test_data_dir = fs::path(kTestData) / "test_data_set_0";
  check(r.outputs(in));

  // The same input as a .npy file.
  onnx::TensorProto x = read_pb(fs::path(kTestData) / "test_data_set_0" / "input_0.pb");
  std::vector<float> xs = floats_of(x);
  std::string shape;
  for (auto d : x.dims()) shape += std::to_string(d) + ", ";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + "), }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  fs::path npy = *dir_ / "input_0.npy";
  {
    std::ofstream f(npy, std::ios::binary);
    f.write("\x93NUMPY\x01\x00", 8);
    uint16_t len = static_cast<uint16_t>(header.size());
    f.write(reinterpret_cast<const char*>(&len), 2);
    f << header;
    f.write(reinterpret_cast<const char*>(xs.data()), static_cast<std::streamsize>(xs.size() * 4));
  }
  Inputs from_npy;
  from_npy.inputs[info.inputs[0].name].file = npy;
  check(r.outputs(from_npy));
}

// rooflens' own generator (backends/common/feeds.h, for runtimes in its own child process) makes the very values
// the ORT runner generates: Identity models hand the runner's inputs back, byte for byte.
TEST_F(OrtRunnerTest, GeneratedInputsEqualTheCppGenerator) {
  onnx::ModelProto m = rooflens::testing::empty_model(17);
  auto* g = m.mutable_graph();
  rooflens::testing::add_value(g->mutable_input(), "pixels", {2, 3, 5});
  rooflens::testing::add_value(g->mutable_input(), "ids", {64}, {}, onnx::TensorProto::INT64);
  rooflens::testing::add_value(g->mutable_input(), "mask", {33}, {}, onnx::TensorProto::BOOL);
  rooflens::testing::add_value(g->mutable_output(), "p", {2, 3, 5});
  rooflens::testing::add_value(g->mutable_output(), "i", {64}, {}, onnx::TensorProto::INT64);
  rooflens::testing::add_value(g->mutable_output(), "k", {33}, {}, onnx::TensorProto::BOOL);
  rooflens::testing::add_node(g, "Identity", {"pixels"}, {"p"}, "id_p");
  rooflens::testing::add_node(g, "Identity", {"ids"}, {"i"}, "id_i");
  rooflens::testing::add_node(g, "Identity", {"mask"}, {"k"}, "id_k");
  fs::path path = *dir_ / "identity3.onnx";
  rooflens::testing::save(m, path.string());

  OrtRunner r;
  r.load(path, {});
  Inputs in;
  in.seed = 12345678901ULL;
  in.inputs["ids"].max = 30522;
  std::vector<TensorData> outs = r.outputs(in);
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(outs[0].bytes, generate_tensor("pixels", 1, {2, 3, 5}, in.seed, std::nullopt).bytes);
  EXPECT_EQ(outs[1].bytes, generate_tensor("ids", 7, {64}, in.seed, 30522).bytes);
  EXPECT_EQ(outs[2].bytes, generate_tensor("mask", 9, {33}, in.seed, std::nullopt).bytes);
}

// int64 token ids bounded by a per-input max: a Gather over a 10-row table accepts ids < 10 only.
TEST_F(OrtRunnerTest, IntInputsBoundedByMax) {
  onnx::ModelProto m = rooflens::testing::empty_model(17);
  auto* g = m.mutable_graph();
  rooflens::testing::add_value(g->mutable_input(), "ids", {1, 64}, {}, onnx::TensorProto::INT64);
  rooflens::testing::add_value(g->mutable_output(), "emb", {1, 64, 4});
  rooflens::testing::add_float_initializer(g, "table", {10, 4});
  rooflens::testing::add_node(g, "Gather", {"table", "ids"}, {"emb"}, "embed");
  fs::path path = *dir_ / "gather.onnx";
  rooflens::testing::save(m, path.string());

  OrtRunner r;
  r.load(path, {});
  // Default ids are in [0, 100): ORT rejects the out-of-range ones, and the runner survives it.
  RunnerError e = expect_runner_error([&] { r.outputs(Inputs{}); });
  EXPECT_EQ(e.code, "ort");
  EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos);

  nlohmann::json req = {{"op", "outputs"}, {"inputs", {{"ids", {{"max", 10}}}}}, {"return_inputs", true}};
  nlohmann::json res = r.call(req, 10s);
  ASSERT_EQ(res["inputs"].size(), 1u);
  EXPECT_EQ(res["inputs"][0]["dtype"], "int64");
  Inputs bounded;
  bounded.inputs["ids"].max = 10;
  auto outs = r.outputs(bounded);
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].dims, (std::vector<int64_t>{1, 64, 4}));
  // Same seed, same values; another seed, other values.
  auto other = r.call({{"op", "outputs"}, {"inputs", {{"ids", {{"max", 10}}}}}, {"return_inputs", true}, {"seed", 1}}, 10s);
  EXPECT_EQ(r.call(req, 10s)["inputs"][0]["data_b64"], res["inputs"][0]["data_b64"]);
  EXPECT_NE(other["inputs"][0]["data_b64"], res["inputs"][0]["data_b64"]);
}

TEST_F(OrtRunnerTest, StartFailuresAreOneLineErrors) {
  auto expect_start_error = [](RunnerConfig c, const std::string& needle) {
    try {
      OrtRunner r(std::move(c));
      ADD_FAILURE() << "the runner started";
    } catch (const UserError& e) {
      std::string m = e.what();
      EXPECT_NE(m.find(needle), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  };
  expect_start_error(runner_config({}, "/nonexistent/rooflens/node"), "not found");

  // The runner's folder (run.mjs and its modules) without node_modules: the runner exits 69 and says what to install.
  fs::path lonely = *dir_ / "lonely-runner";
  fs::create_directories(lonely);
  for (const auto& e : fs::directory_iterator(locate_runner_script().parent_path())) {
    if (e.path().extension() == ".mjs") {
      fs::copy_file(e.path(), lonely / e.path().filename(), fs::copy_options::overwrite_existing);
    }
  }
  expect_start_error(runner_config(lonely / "run.mjs"), "cannot load onnxruntime-node");
}

// --realtime asks for a runner's threads on two CPU lists (a worker pins itself after the load); a runner whose
// threads never get there (here: no model, so no worker) stays at normal priority rather than go real time on one CPU,
// and says why.
TEST_F(OrtRunnerTest, ARunnerWhoseWorkersNeverMoveIsNotMadeRealTime) {
  RunnerConfig c = runner_config();
  c.realtime_priority = 10;
  c.cpus = {0};
  c.realtime_cpu_lists = 2;
  OrtRunner r(c);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(r.process().enter_realtime());
  EXPECT_GE(std::chrono::steady_clock::now() - t0, kRealtimePlacementWait);
  EXPECT_NE(r.process().realtime_refusal().find("had not moved to their CPUs"), std::string::npos)
      << r.process().realtime_refusal();
  // Each thread keeps the policy it was born with, this test's own (SCHED_OTHER, or SCHED_IDLE beside the timed tests).
  const int own = ::sched_getscheduler(0);
  for (const int tid : thread_ids(r.process().pid()))
    EXPECT_EQ(::sched_getscheduler(tid), own) << "thread " << tid << " left the policy it was started with";
}

TEST_F(OrtRunnerTest, MessagesBeforeLoadAreRefused) {
  OrtRunner r;
  RunnerError e = expect_runner_error([&] { r.run_timed(batch(1), quick(1), kTimeout); });
  EXPECT_EQ(e.code, "not_ready");
  EXPECT_EQ(e.kind, ReplyStatus::error);
}

}  // namespace
