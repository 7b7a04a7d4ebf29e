// Memory through the real binary and a real ONNX Runtime runner: the prediction in the executed order against what
// the runner held on corpus models (arena off, the runner's glibc giving freed large blocks back), the arena's band,
// the KV cache of a zoo decoder against its formula and against the runner's measured increase as the context
// grows, and a warning before a run that cannot fit. Tolerances as docs/memory.md states them.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/onnx_builder.h"
#include "support/ort_suite.h"
#include "zoo/registry.h"
#include "zoo/save.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens::testing;

namespace {

const std::string kQuickMemory = " --warmup 1 --iterations 3 --duration 0 --profile-iterations 2 --no-db -q";
const std::string kRelease = "mallocMmapThreshold=131072";
// The runtime's baseline is calibrated in a process of its own on the kernels most models share; a model that runs none
// of them never makes their pages resident, nor does an inference session before its first run: the calibration's own
// first run measured them on this machine (predicted.baseline_run_bytes: 1.9 MiB on an AVX-512 Xeon; the kernels the
// runtime picks, and so their code, differ by CPU class), the one margin below a band.
double baseline_pages(const json& predicted) { return predicted.at("baseline_run_bytes").get<double>(); }

fs::path corpus_dir() {
  if (const char* env = std::getenv("ROOFLENS_CORPUS")) return env;
  return fs::path(ROOFLENS_SOURCE_DIR) / "corpus";
}

class MemoryTest : public ::testing::Test {
 protected:
  // The runtime's calibration measured in this test run, on this machine, in processes of their own (a cache of the
  // suite's own): the home directory's may have come with a snapshot of another host's, or another boot's, whose
  // baseline differs by MBs. No roofs: memory needs none, and measuring them would only slow the suite.
  static void SetUpTestSuite() { calibration_ = fresh_test_dir("rooflens-memory-calibration"); }
  static void TearDownTestSuite() {
    if (!calibration_.empty()) fs::remove_all(calibration_);
  }
  CliResult run(const std::string& args) {
    return run_cli_env("XDG_CACHE_HOME=" + shell_quote(calibration_.string()) + " ", args + " --no-roofs",
                       dir_.string());
  }
  void SetUp() override {
    if (!ort_runner_available()) GTEST_SKIP() << "runners/ort not installed (make deps)";
    dir_ = fresh_test_dir("rooflens-memory-test");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // The report of `rooflens profile MODEL FLAGS -B onnxruntime:OPTIONS`.
  json profile(const fs::path& model, const std::string& flags, const std::string& options) {
    const fs::path report = dir_ / "report.json";
    CliResult r = run("profile " + shell_quote(model.string()) + " " + flags + kQuickMemory + " -B onnxruntime:" +
                              options + " -o " + shell_quote(report.string()));
    EXPECT_LE(r.rc, 1) << r.err;  // 1: a timing warning; the figures stand
    return json::parse(slurp(report.string()));
  }
  // The zoo llama with a KV cache, small enough that its cache outgrows its weights: 2 layers, hidden 128, 4 heads
  // sharing 2 kv heads (head_dim 32), FFN 256, vocab 512.
  fs::path small_llama() {
    rooflens::zoo::ZooOptions o;
    o.kv_cache = true;
    o.decoder = {2, 128, 4, 2, 256, 512};
    rooflens::zoo::BuiltModel built = rooflens::zoo::make_model(rooflens::zoo::find_model("llama"), o);
    const fs::path model = dir_ / "llama_kv.onnx";
    rooflens::zoo::save_model(built.model, model, false);
    return model;
  }
  fs::path dir_;
  static inline fs::path calibration_;
};

double error_of(const json& memory) {
  const double predicted = memory.at("predicted").at("total_bytes").get<double>();
  const double measured = memory.at("measured").at("increase_bytes").get<double>();
  return predicted / measured - 1;
}

}  // namespace

TEST_F(MemoryTest, PredictedAgainstMeasuredOnCorpusModelsWithTheArenaOff) {
  if (!fs::exists(corpus_dir() / "manifest.json")) GTEST_SKIP() << "no corpus (make corpus)";
  struct Case { const char* file; std::string flags; };
  const std::vector<Case> cases{{"resnet50.op17.onnx", "--batch 1"},
                                {"mobilenet_v3_large.op17.onnx", "--batch 2"},
                                {"vit_b_16.op17.onnx", "--batch 2"},
                                {"deeplabv3_mobilenet_v3_large.op17.onnx", "--batch 2 --dim height=224 --dim width=224"}};
  std::vector<double> errors;
  for (const auto& c : cases) {
    const json r = profile(corpus_dir() / c.file, c.flags, "enableCpuMemArena=false," + kRelease);
    const json& run = r.at("runs").at(0);
    ASSERT_TRUE(run.contains("memory")) << c.file;
    const json& m = run.at("memory");
    const json& p = m.at("predicted");
    EXPECT_EQ(p.at("weights_source"), "executed_graph") << c.file;
    EXPECT_FALSE(p.contains("arena")) << c.file << ": the arena is off, nothing to simulate";
    // The runtime's constant inputs are the model's weights, folded: never more than the file holds plus BN folds.
    EXPECT_LE(p.at("weights_bytes").get<double>(), 1.02 * r.at("model").at("weight_bytes").get<double>()) << c.file;
    EXPECT_GT(p.at("baseline_bytes").get<double>(), 5e6) << c.file;  // a real inference session costs MBs
    // The inference session's node structures: a trivial node costs KBs, and a real node at least that, so they stay
    // under what the inference session measured beyond baseline and weights — give or take the pages of the baseline's
    // first run, which an inference session has not made resident before its own (baseline_pages), and half a MiB of
    // what one process's heap happens to reuse.
    const double per_node = p.at("structures_bytes").get<double>() / static_cast<double>(
                                r.at("model").at("analysis").at("nodes").size());
    EXPECT_TRUE(per_node > 500 && per_node < 50'000) << c.file << ": " << per_node << " bytes per node";
    const json& meas = m.at("measured");
    EXPECT_LE(p.at("baseline_bytes").get<double>() + p.at("structures_bytes").get<double>() +
                  p.at("weights_bytes").get<double>() + p.at("prepacked_bytes").get<double>(),
              meas.at("after_session_bytes").get<double>() - meas.at("start_bytes").get<double>() + baseline_pages(p) +
                  0.5 * (1 << 20))
        << c.file;
    EXPECT_TRUE(m.at("measured").at("peak_reset").get<bool>()) << c.file;
    // The inference session as the replay of its creation predicts it (glibc giving large blocks back: its live
    // blocks), within a quarter of what the runner held once it existed.
    double beyond = 0;
    for (const auto& part : m.at("explained"))
      if (part.at("name") == "inference session beyond its prediction") beyond = part.at("bytes").get<double>();
    EXPECT_LE(std::fabs(beyond), 0.25 * (meas.at("after_session_bytes").get<double>() -
                                         meas.at("start_bytes").get<double>())) << c.file << ": " << m.dump();
    // The curve follows the layers and peaks at the named layer.
    const auto& curve = m.at("curve");
    ASSERT_EQ(curve.size(), run.at("layers").size()) << c.file;
    const int64_t peak = p.at("peak_layer").get<int64_t>();
    EXPECT_EQ(curve.at(static_cast<size_t>(peak)).get<uint64_t>(), p.at("activations_bytes").get<uint64_t>()) << c.file;
    const double e = error_of(m);
    EXPECT_LE(std::fabs(e), 0.25) << c.file << ": predicted " << p.dump() << " measured " << m.at("measured").dump();
    errors.push_back(std::fabs(e));
  }
  std::sort(errors.begin(), errors.end());
  const double median = (errors[1] + errors[2]) / 2;
  EXPECT_LE(median, 0.10) << "median |error| over the corpus models";
}

TEST_F(MemoryTest, TheDefaultArenaLiesInsideItsBandAndItsOwnFiguresAreKept) {
  if (!fs::exists(corpus_dir() / "manifest.json")) GTEST_SKIP() << "no corpus (make corpus)";
  const json r = profile(corpus_dir() / "resnet50.op17.onnx", "--batch 1", kRelease);
  const json& m = r.at("runs").at(0).at("memory");
  const json& p = m.at("predicted");
  // The band from ORT's arena simulated over the first run: the prediction's other parts plus the pages the tensors
  // wrote (low) or the regions the arena added (high); the regions are powers of two from 1 MiB (kNextPowerOfTwo).
  ASSERT_TRUE(p.contains("arena")) << p.dump();
  const json& a = p.at("arena");
  uint64_t regions = 0;
  for (const auto& r : a.at("regions")) {
    const uint64_t b = r.get<uint64_t>();
    EXPECT_TRUE(b >= 1048576 && (b & (b - 1)) == 0) << a.dump();
    regions += b;
  }
  EXPECT_EQ(regions, a.at("held_bytes").get<uint64_t>());
  EXPECT_LE(a.at("written_bytes").get<uint64_t>(), regions);
  // The caller's input buffers are outside the arena: 1x3x224x224 floats.
  EXPECT_EQ(a.at("inputs_bytes").get<uint64_t>(), 3u * 224 * 224 * 4);
  const double fixed = p.at("baseline_bytes").get<double>() + p.at("structures_bytes").get<double>() +
                       p.at("weights_bytes").get<double>() +
                       p.at("prepacked_bytes").get<double>() + p.at("output_copies_bytes").get<double>() +
                       a.at("inputs_bytes").get<double>();
  EXPECT_EQ(a.at("low_bytes").get<double>(), fixed + a.at("written_bytes").get<double>());
  const double got = m.at("measured").at("increase_bytes").get<double>();
  EXPECT_GE(got, a.at("low_bytes").get<double>() - baseline_pages(p)) << m.dump();
  EXPECT_LE(got, a.at("high_bytes").get<double>()) << m.dump();
  // ORT writes its arena's figures into the profile when the arena is on: held at least what was in use.
  const json& measured = m.at("measured");
  ASSERT_TRUE(measured.contains("allocator_held_bytes")) << measured.dump();
  EXPECT_GE(measured.at("allocator_held_bytes").get<double>(), measured.at("allocator_in_use_peak_bytes").get<double>());
  // The run says how the arena was set, and how it grows.
  bool arena = false, growth = false;
  for (const auto& s : r.at("runs").at(0).at("settings")) {
    arena |= s.at("name") == "memory_arena" && s.at("value") == "on";
    growth |= s.at("name") == "arena_extend_strategy";
  }
  EXPECT_TRUE(arena && growth);
}

TEST_F(MemoryTest, ATextModelsKernelsRanInTheBaselineSoItsIncreaseLiesInsideItsBand) {
  // A kernel's code is resident once something ran it. text_encoder's kernels (a fused transformer's layer norm,
  // matrix products, softmax, its embedding and mask) touch 1.5 MiB of the runtime's library that a one-node
  // baseline never ran, which put its increase 4% above its band; the baseline (measured in a process of its own)
  // runs the kernels most models share, so those pages are in it (docs/memory.md, baseline_bytes).
  if (!fs::exists(corpus_dir() / "manifest.json")) GTEST_SKIP() << "no corpus (make corpus)";
  const json r = profile(corpus_dir() / "text_encoder.op17.onnx", "--batch 2 --dim seq=16", kRelease);
  const json& m = r.at("runs").at(0).at("memory");
  ASSERT_TRUE(m.at("predicted").contains("arena")) << m.dump();
  const json& a = m.at("predicted").at("arena");
  const double got = m.at("measured").at("increase_bytes").get<double>();
  EXPECT_GE(got, a.at("low_bytes").get<double>() - baseline_pages(m.at("predicted"))) << m.dump();
  EXPECT_LE(got, a.at("high_bytes").get<double>()) << m.dump();
}

TEST_F(MemoryTest, WithTheDefaultsThePeakOfTheZooResNet50IsPredictedBeforeItsInferenceSessionExists) {
  // make run's memory line: ONNX Runtime's and glibc's defaults (arena on, glibc's dynamic mmap threshold), where what
  // the C allocator keeps after the inference session's creation is most of the process (docs/memory.md). The
  // prediction is made before the measured inference session exists: --layers-only, which never makes that inference
  // session, predicts the same figures to the byte.
  rooflens::zoo::BuiltModel built = rooflens::zoo::make_model(rooflens::zoo::find_model("resnet50"), {});
  const fs::path model = dir_ / "resnet50.onnx";
  rooflens::zoo::save_model(built.model, model, false);
  const fs::path full = dir_ / "full.json", only = dir_ / "only.json";
  CliResult a = run("profile " + model.string() + " --batch 1" + kQuickMemory + " -o " + full.string());
  ASSERT_LE(a.rc, 1) << a.err;
  CliResult b = run("profile " + model.string() + " --batch 1 --layers-only" + kQuickMemory + " -o " + only.string());
  ASSERT_EQ(b.rc, 0) << b.err;
  const json m = json::parse(slurp(full.string())).at("runs").at(0).at("memory");
  const json lo = json::parse(slurp(only.string())).at("runs").at(0);
  EXPECT_TRUE(lo.at("latencies_ms").empty());
  EXPECT_FALSE(lo.at("memory").contains("measured"));
  EXPECT_EQ(lo.at("memory").at("predicted"), m.at("predicted"));
  const json& p = m.at("predicted");
  ASSERT_TRUE(p.contains("c_allocator")) << p.dump();
  EXPECT_EQ(p.at("c_allocator").at("setting"), "glibc default");
  // The allocator keeps more than the weights themselves: the replay says so, and the runner shows it.
  const double kept = p.at("c_allocator").at("session_bytes").get<double>() - p.at("weights_bytes").get<double>() -
                      p.at("prepacked_bytes").get<double>();
  EXPECT_GT(kept, 0.5 * p.at("weights_bytes").get<double>()) << p.dump();
  const double predicted = p.at("peak_bytes").get<double>(), measured = m.at("measured").at("peak_bytes").get<double>();
  EXPECT_LE(std::fabs(predicted / measured - 1), 0.25) << "predicted " << predicted << " measured " << measured;
}

TEST_F(MemoryTest, TheKvCacheOfAZooDecoderFollowsItsFormulaAndTheRunner) {
  // A Llama-shaped decoder small enough that its cache outgrows its weights: 2 layers, hidden 128, 4 heads sharing
  // 2 kv heads (head_dim 32), vocab 512; arena and memory pattern off, freed blocks given back, as the accuracy goal
  // states it (docs/memory.md).
  const fs::path model = small_llama();
  const fs::path report = dir_ / "generate.json";
  CliResult g = run("generate " + model.string() + " -p 128,512 -n 32 -b 2 --requests 2 --warmup 0 --duration 0 "
                        "--no-layers --no-db -q -B onnxruntime:enableCpuMemArena=false,enableMemPattern=false," +
                            kRelease + " -o " + report.string());
  ASSERT_LE(g.rc, 1) << g.err;
  const json runs = json::parse(slurp(report.string())).at("generation").at("runs");
  ASSERT_EQ(runs.size(), 2u);
  const uint64_t per_token = 2 * 2 * 2 * 32 * 4;  // key and value x layers x kv heads x head_dim x float
  std::vector<double> decode_measured, decode_collected, kv_end;
  for (const auto& run : runs) {
    const json& m = run.at("memory");
    SCOPED_TRACE("run memory: " + m.dump());  // every figure, when an expectation on another class fails
    EXPECT_EQ(m.at("kv_bytes_per_token").get<uint64_t>(), per_token);
    const uint64_t batch = run.at("batch").get<uint64_t>(), prompt = run.at("prompt").get<uint64_t>();
    const uint64_t gen = run.at("gen").get<uint64_t>();
    EXPECT_EQ(m.at("prefill_kv_bytes").get<uint64_t>(), batch * prompt * per_token);
    EXPECT_EQ(m.at("decode_kv_bytes").get<uint64_t>(), batch * (prompt + gen) * per_token);
    ASSERT_EQ(m.at("per_step_kv_bytes").size(), gen + 1);
    EXPECT_EQ(m.at("per_step_kv_bytes").at(gen).get<uint64_t>(), m.at("decode_kv_bytes").get<uint64_t>());
    // The last step holds at least its past and present: the activations the analysis finds at its dims say so.
    EXPECT_GE(m.at("decode_activations_bytes").get<uint64_t>(), batch * (2 * (prompt + gen) - 1) * per_token);
    // The runner measured each phase; the prefill (attention over the whole prompt) needs the most.
    EXPECT_GT(m.at("prefill_measured_bytes").get<uint64_t>(), m.at("prefill_activations_bytes").get<uint64_t>() / 2);
    EXPECT_GT(m.at("decode_measured_bytes").get<uint64_t>(), 0u);
    // The whole loop's peak is at least each phase's by construction (one high-water over both); what it may not do
    // is hold more than the phases and a few pages of the loop's own bookkeeping between them.
    const double phases =
        std::max(m.at("prefill_measured_bytes").get<double>(), m.at("decode_measured_bytes").get<double>());
    EXPECT_LE(m.at("measured_increase_bytes").get<double>(), phases * 1.01);
    // The decode phase against the runner (docs/memory.md, Decoders): the prediction is a floor — what it leaves out
    // (the inference session's structures, the JavaScript heap, output copies the garbage collector has not freed) only
    // adds — and with those parts as the runner measured them, the rest is small (within 9% over bench part 9's sweep;
    // -1..4% at these contexts). Without the runner's mallocMmapThreshold (generate once dropped it) it was 3-16%.
    const double predicted = m.at("decode_peak_bytes").get<double>();
    const double measured = m.at("decode_measured_bytes").get<double>();
    EXPECT_LE(predicted, measured * 1.05);
    const double live =
        m.at("decode_copies_bytes").get<double>() + static_cast<double>(batch * (prompt + gen - 1) * per_token);
    const double buffers = m.at("decode_caller_buffers_bytes").get<double>();
    EXPECT_GE(buffers, live * 0.9);  // the step's past and the copies of its outputs are the caller's buffers
    const double uncollected = std::max(0.0, buffers - live);
    const double explained = predicted + m.at("session_beyond_bytes").get<double>() +
                             m.at("caller_heap_bytes").get<double>() + uncollected;
    // The timed requests peak where V8's collector happens to leave them: over 16 runs of these two configurations
    // the ratio spread over 0.83-0.96 (an outlier step held 5 MB more once); the memory generation below is the steady
    // figure the prediction is held to.
    EXPECT_NEAR(explained / measured, 1.0, 0.2) << "predicted " << predicted << ", measured " << measured;
    EXPECT_GT(m.at("uncollected_copies_bytes").get<uint64_t>(), 0u);
    // The memory generation (the caller's garbage collected before every run): what a step holds. The prediction is
    // below it by the inference session's structures and the first run's own allocations, 2-3 MB on this decoder
    // whatever its context (bench part 9: within 2.2% on the published-size llama, where those are 1% of the increase).
    // The one part of the prediction a decoder may not hold is the margin docs/memory.md allows below every band: of
    // the pages the calibration's first run made resident (`baseline_run_bytes`, 1.9 MB here), those of its
    // convolution, pooling and resizing kernels, which a decoder never runs. Without it the decode step read 2.1% and
    // 2.6% above its memory generation in two fresh-clone suites (the small llama's increase is 27 MB of baseline).
    const double kernels_not_run = m.at("baseline_run_bytes").get<double>();
    for (const std::string phase : {"prefill", "decode"}) {
      const double collected = m.at(phase + "_collected_bytes").get<double>();
      const double timed = m.at(phase + "_measured_bytes").get<double>();
      const double peak = m.at(phase + "_peak_bytes").get<double>();
      ASSERT_GT(collected, 0) << phase;
      EXPECT_LE(collected, timed * 1.02) << phase << ": the timed requests hold their uncollected copies besides";
      EXPECT_LE(peak - kernels_not_run, collected * 1.02) << phase << ": the prediction is a floor";
      const double rest = collected - peak - m.at("session_beyond_bytes").get<double>() -
                          m.at("collected_heap_bytes").get<double>();
      // The decode step's rest is fixed (2-3 MB); the prefill's grows with the prompt (4 MB at batch 2, prompt 512).
      // Part of it is the pages of the kernels the first run makes resident, which the baseline holds for its own
      // kernels: how many differs by CPU class (the runtime picks its kernels by ISA), so they widen the bound as the
      // calibration measured them here (1.9 MB on an AVX-512 Xeon, where the rest was 1.5-1.9 MB decoding).
      const double bound = (phase == "decode" ? 2e6 : 0.1 * collected) + m.at("baseline_run_bytes").get<double>();
      EXPECT_LT(std::fabs(rest), bound) << phase << ": predicted " << peak << ", memory generation " << collected;
    }
    // The collections keep V8's heap near where it was: what it still grows by is whole pages of its young generation,
    // sized on V8's own measure of its collector's speed — under 1.5 MB on a Sapphire Rapids Xeon, 3.5 MiB on a Zen 3
    // EPYC — and it is counted above; what may not happen is a heap that holds a share of the step.
    EXPECT_LT(m.at("collected_heap_bytes").get<double>(), 0.2 * m.at("decode_collected_bytes").get<double>());
    // What the inference session's creation left beyond its prediction and the JavaScript heap's growth are the
    // runner's own and move by up to 1 MB from one runner to the next (the C allocator's placement, V8's pages): the
    // cache's growth is read without them.
    decode_collected.push_back(m.at("decode_collected_bytes").get<double>() - m.at("session_beyond_bytes").get<double>() -
                               m.at("collected_heap_bytes").get<double>());
    decode_measured.push_back(m.at("decode_measured_bytes").get<double>());
    kv_end.push_back(m.at("decode_kv_bytes").get<double>());
  }
  // Four times the prompt: the decode phase's increase grows by what the cache adds (past and present), 1.57 MB. The
  // timed requests' peaks cannot show that: they sit where V8's collector happens to leave the copies (above: an
  // outlier step held 5 MB more), and their difference came out at 1.10 MB once in a suite whose other tests ran
  // beside it. Only that it grows is asked of them; the memory generation is the figure held to the cache.
  EXPECT_GT(decode_measured[1], decode_measured[0]);
  // Read without the runner's own parts it still moved from 1.37 to 3.10 MB over 18 runs, for 1.57 MB of past and
  // present: 0.75 of it holds, and fails a cache that grows by one of them only (0.5 of it).
  EXPECT_GE(decode_collected[1] - decode_collected[0], 2 * (kv_end[1] - kv_end[0]) * 0.75)
      << "the memory generation's decode phase without the runner's own parts";
}

TEST_F(MemoryTest, AGenerationThatCannotFitIsWarnedAboutBeforeItRuns) {
  // The small llama over a 131,072-token prompt: its prefill's attention scores alone are 4 heads x 2^34 floats
  // (256 GiB). generate warns before the configuration runs, and ORT's refusal to allocate them is the
  // configuration's failure (an error with the runtime's words), not a crash; the report is written.
  const fs::path model = small_llama();
  const fs::path report = dir_ / "huge_generate.json";
  CliResult g = run("generate " + model.string() + " -p 131072 -n 1 --requests 1 --warmup 0 --duration 0 "
                        "--no-layers --no-db -o " + report.string());
  EXPECT_EQ(g.rc, 1) << g.err;
  EXPECT_NE(g.err.find("rooflens generate: warning: "), std::string::npos) << g.err;
  EXPECT_NE(g.err.find("free here"), std::string::npos) << g.err;
  const json r = json::parse(slurp(report.string()));
  bool warned = false;
  for (const auto& w : r.at("warnings")) warned |= w.get<std::string>().find("needs at least") != std::string::npos;
  EXPECT_TRUE(warned);
  ASSERT_EQ(r.at("failures").size(), 1u);
  EXPECT_EQ(r.at("failures").at(0).at("kind"), "error") << r.at("failures").dump();
  EXPECT_NE(r.at("failures").at(0).at("message").get<std::string>().find("allocate"), std::string::npos);
}

TEST_F(MemoryTest, ARunThatCannotFitIsWarnedAboutBeforeItRuns) {
  // One float expanded to 2^20 x 2^20 (4 TiB, more than any machine here has free) and summed: profile warns before
  // the run, says so in the report, and the failure (ORT cannot allocate it) is an error, not a crash.
  onnx::ModelProto m = empty_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 1});
  add_value(g->mutable_output(), "y", {1, 1});
  add_node(g, "Expand", {"x", "shape"}, {"big"}, "expand");
  auto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(1 << 20);
  shape->add_int64_data(1 << 20);  // 2^40 floats: 4 TiB
  add_node(g, "ReduceSum", {"big"}, {"y"}, "sum");
  save(m, (dir_ / "huge.onnx").string());
  CliResult r = run("profile " + (dir_ / "huge.onnx").string() + kQuickMemory + " -o " +
                            (dir_ / "huge.json").string());
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("rooflens profile: warning: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("free here"), std::string::npos) << r.err;
  const json report = json::parse(slurp((dir_ / "huge.json").string()));
  bool warned = false;
  for (const auto& w : report.at("warnings")) warned |= w.get<std::string>().find("needs at least") != std::string::npos;
  EXPECT_TRUE(warned);
  ASSERT_EQ(report.at("failures").size(), 1u);
  EXPECT_EQ(report.at("failures").at(0).at("kind"), "error") << report.at("failures").dump();
}
