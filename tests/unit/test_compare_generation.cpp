// `compare` on generation reports: every configuration becomes a TTFT item and a TPOT item, each tested like any
// latency (repetitions -> Welch on run medians; one run -> Mann-Whitney + bootstrap), with the prefill / decode
// layers for per-layer deltas; a configuration that fails in NEW is a new failure for both.
#include <gtest/gtest.h>

#include "compare/compare.h"
#include "compare/generation_items.h"
#include "compare/sources.h"
#include "core/report.h"

using namespace rooflens;

namespace {

// 12 requests of 16 decode steps; TPOT around `tpot` ms, TTFT around `ttft` ms, with a little deterministic jitter.
Report gen_report(double ttft, double tpot, int runs = 1) {
  Report r;
  r.tool.command = "generate";
  r.model.name = "tiny";
  r.backends = {BackendInfo{"onnxruntime", "1.30.0", {}, "onnxruntime-node 1.30.0", "onnxruntime", ""}};
  Generation g;
  GenerationRun run;
  run.batch = 1;
  run.prompt = 64;
  run.gen = 16;
  for (int k = 0; k < runs; ++k) {
    for (int q = 0; q < 12; ++q) {
      run.ttft_samples_ms.push_back(ttft * (1 + 0.01 * ((q * 7 + k) % 5)));
      for (int s = 0; s < 16; ++s) run.tpot_samples_ms.push_back(tpot * (1 + 0.01 * ((q * 3 + s + k) % 7)));
    }
    run.repetitions.push_back(12);
  }
  PhaseProfile decode;
  decode.phase = Phase::decode;
  Layer l;
  l.name = "mm";
  l.op = "MatMul";
  l.onnx_nodes = {"h.0/MatMul"};
  l.time_ms = tpot / 2;
  decode.layers = {l};
  run.phases = {decode};
  g.runs = {run};
  r.generation = g;
  return r;
}

const ItemComparison& find(const Comparison& c, const std::string& config) {
  for (const auto& i : c.items)
    if (i.config == config) return i;
  throw std::runtime_error("no item " + config);
}

TEST(CompareGeneration, TtftAndTpotAreItemsOfTheirOwn) {
  const CompareSource src = source_from_report(gen_report(50, 10), "base.json");
  ASSERT_EQ(src.items.size(), 2u);
  EXPECT_EQ(src.items[0].config, "batch=1 gen=16 prompt=64 · TTFT");
  EXPECT_EQ(src.items[0].samples_ms.size(), 12u);
  EXPECT_FALSE(src.items[0].layers);  // no prefill profile in this report
  EXPECT_EQ(src.items[1].config, "batch=1 gen=16 prompt=64 · TPOT");
  EXPECT_EQ(src.items[1].samples_ms.size(), 12u * 16);
  EXPECT_EQ(src.items[1].repetitions, (std::vector<int64_t>{12 * 16}));
  ASSERT_TRUE(src.items[1].layers);
  EXPECT_EQ(src.items[1].layers->size(), 1u);
  EXPECT_NE(src.description.find("generation report of tiny"), std::string::npos);
}

TEST(CompareGeneration, SlowerDecodeIsARegressionOfTpotOnly) {
  CompareOptions o;
  const Comparison c = compare_sources(source_from_report(gen_report(50, 10), "base.json"),
                                       source_from_report(gen_report(50, 12), "new.json"), o);
  EXPECT_EQ(find(c, "batch=1 gen=16 prompt=64 · TPOT").verdict, "regression");
  EXPECT_EQ(find(c, "batch=1 gen=16 prompt=64 · TTFT").verdict, "within noise");
  ASSERT_TRUE(find(c, "batch=1 gen=16 prompt=64 · TPOT").layers);
}

// Repeated runs on both sides: the runs are the units (Welch on the logs of the run medians).
TEST(CompareGeneration, RepeatedRunsAreComparedAsRuns) {
  CompareOptions o;
  const Comparison c = compare_sources(source_from_report(gen_report(50, 10, 3), "base.json"),
                                       source_from_report(gen_report(40, 10, 3), "new.json"), o);
  const ItemComparison& ttft = find(c, "batch=1 gen=16 prompt=64 · TTFT");
  ASSERT_TRUE(ttft.latency);
  EXPECT_EQ(ttft.latency->unit, "runs");
  EXPECT_EQ(ttft.latency->base_runs, 3);
  EXPECT_EQ(ttft.verdict, "improvement");
}

TEST(CompareGeneration, AFailedConfigurationFailsBothItems) {
  Report head = gen_report(50, 10);
  head.generation->runs.clear();
  Failure f;
  f.batch = 1;
  f.dims = {{"prompt", 64}, {"gen", 16}};
  f.stage = "run";
  f.kind = "died";
  f.message = "the runner was killed by SIGKILL";
  head.failures = {f};
  const Comparison c = compare_sources(source_from_report(gen_report(50, 10), "base.json"),
                                       source_from_report(head, "new.json"), CompareOptions{});
  EXPECT_EQ(find(c, "batch=1 gen=16 prompt=64 · TTFT").verdict, "new failure");
  EXPECT_EQ(find(c, "batch=1 gen=16 prompt=64 · TPOT").verdict, "new failure");
  EXPECT_EQ(find(c, "batch=1 gen=16 prompt=64 · TPOT").new_status, "crash");
}

}  // namespace
