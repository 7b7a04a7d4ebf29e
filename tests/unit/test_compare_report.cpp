// The renderings of a Comparison: every format shows the same verdicts; CSV and JSON carry exact values.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/comparison.h"
#include "reporters/compare_report.h"

using namespace rooflens;

namespace {

Comparison sample() {
  Comparison c;
  c.base = {"base.json", "report", "profile report of net", 3, false};
  c.head = {"new.json", "report", "profile report of net", 3, false};
  ItemComparison slow;
  slow.model = "net|v2";
  slow.config = "batch=1 threads=2";
  slow.base_status = slow.new_status = status::kPass;
  slow.verdict = verdict::kRegression;
  LatencyComparison l;
  l.base_n = l.new_n = 30;
  l.base_median_ms = 10;
  l.new_median_ms = 11;
  l.ratio = 1.1;
  l.change = 0.1;
  l.tested = l.significant = true;
  l.ci_low = 1.08;
  l.ci_high = 1.12;
  l.p_value = 2.5e-9;
  l.base_runs = l.new_runs = 1;
  l.unit = test_unit::kSamples;
  slow.latency = l;
  LayerComparison layers;
  LayerDelta d;
  d.name = "conv`1";
  d.op = "Conv";
  d.onnx_nodes = {"conv1", "relu1"};
  d.base_ms = 2;
  d.new_ms = 2.5;
  d.base_share = 0.2;
  d.new_share = 0.22;
  layers.matched = {d};
  LayerDelta gone = d;
  gone.name = "fc";
  gone.new_ms = gone.new_share = 0;
  layers.only_base = {gone};
  slow.layers = layers;
  ItemComparison broke;
  broke.model = "net|v2";
  broke.config = "batch=8";
  broke.base_status = status::kPass;
  broke.new_status = status::kCrash;
  broke.new_error = "run: runner died, \"signal 11\"";
  broke.verdict = verdict::kNewFailure;
  ItemComparison noise = slow;
  noise.config = "batch=4 threads=2";
  noise.verdict = verdict::kWithinNoise;
  noise.latency->significant = false;
  noise.latency->p_value = 0.4;
  noise.layers.reset();
  c.items = {noise, slow, broke};
  return c;
}

}  // namespace

TEST(CompareReport, TableListsWorstFirstWithTheFigures) {
  std::string t = compare_table(sample(), {});
  size_t reg = t.find("regression"), noise = t.find("within noise");
  ASSERT_NE(reg, std::string::npos) << t;
  ASSERT_NE(noise, std::string::npos) << t;
  EXPECT_LT(reg, noise) << t;  // regressions lead the latency table
  EXPECT_NE(t.find("+10.0%"), std::string::npos) << t;
  EXPECT_NE(t.find("[+8.0%, +12.0%]"), std::string::npos) << t;
  EXPECT_NE(t.find("2.5e-09"), std::string::npos) << t;
  EXPECT_NE(t.find("new failures (1)"), std::string::npos) << t;
  EXPECT_NE(t.find("runner died"), std::string::npos) << t;
  EXPECT_NE(t.find("1 matched by ONNX nodes, 0 fused differently, 1 only in BASE, 0 only in NEW"), std::string::npos) << t;
  EXPECT_NE(t.find("+25.0%"), std::string::npos) << t;  // the layer's change
  EXPECT_NE(t.find("+2.0 pp"), std::string::npos) << t;
  EXPECT_NE(t.find("not tested for significance"), std::string::npos) << t;
  EXPECT_NE(t.find("summary: 1 new failure, 1 regression, 1 within noise (3 items)"), std::string::npos) << t;
  // --top-layers 0 drops the layer section
  EXPECT_EQ(compare_table(sample(), CompareView{0}).find("matched by ONNX nodes"), std::string::npos);
}

// Layers that compute no ONNX node (an import without --model) are matched by name: the heading says so.
TEST(CompareReport, LayersWithoutNodesAreSaidToMatchByName) {
  Comparison c = sample();
  LayerComparison& l = *c.items[1].layers;
  LayerDelta kernel = l.matched[0];
  kernel.name = "gemv2T_kernel_val";
  kernel.onnx_nodes.clear();
  l.matched.push_back(kernel);
  EXPECT_NE(compare_table(c, {}).find("2 matched (1 of them by name: they compute no ONNX node), 0 fused differently"),
            std::string::npos)
      << compare_table(c, {});
  l.matched.erase(l.matched.begin());
  EXPECT_NE(compare_table(c, {}).find("1 matched by name (they compute no ONNX node), 0 fused differently"),
            std::string::npos);
}

TEST(CompareReport, MarkdownKeepsModelTextLiteral) {
  std::string md = compare_markdown(sample(), {});
  EXPECT_EQ(md.rfind("## rooflens compare", 0), 0u) << md;
  EXPECT_NE(md.find("`net|v2`"), std::string::npos) << md;       // code span; the table escapes the pipe
  EXPECT_NE(md.find("| `net\\|v2` |"), std::string::npos) << md;
  EXPECT_NE(md.find("``conv`1``"), std::string::npos) << md;     // a backtick in a name widens the fence
  EXPECT_NE(md.find("**Summary**: 1 new failure"), std::string::npos) << md;
}

TEST(CompareReport, CsvOneRowPerItemExactValues) {
  std::string csv = compare_csv(sample(), {});
  size_t lines = 0;
  for (char ch : csv) lines += ch == '\n';
  EXPECT_EQ(lines, 4u) << csv;
  EXPECT_EQ(csv.rfind("model,config,verdict,base_status,new_status,base_n,new_n,base_runs,new_runs,base_blocks,"
                      "new_blocks,unit,base_median_ms,new_median_ms,ratio,change,ci_low,ci_high,p_value,df,u_new,exact,"
                      "tested,significant,single_run,base_error,new_error\n", 0), 0u) << csv;
  EXPECT_NE(csv.find("net|v2,batch=1 threads=2,regression,pass,pass,30,30,1,1,0,0,samples,10,11,1.1,0.1,1.08,1.12,"
                     "2.5e-09,,0,false,true,true,true,"),
            std::string::npos)
      << csv;
  // Repeated runs: the degrees of freedom instead of U.
  Comparison c = sample();
  LatencyComparison& l = *c.items[1].latency;
  l.unit = test_unit::kRuns;
  l.base_runs = l.new_runs = 5;
  l.df = 7.5;
  std::string runs = compare_csv(c, {});
  EXPECT_NE(runs.find(",30,30,5,5,0,0,runs,10,11,1.1,0.1,1.08,1.12,2.5e-09,7.5,,,true,true,false,"), std::string::npos)
      << runs;
  EXPECT_NE(csv.find("\"run: runner died, \"\"signal 11\"\"\""), std::string::npos) << csv;  // RFC 4180 quoting
}

TEST(CompareReport, JsonHoldsEverything) {
  auto j = nlohmann::json::parse(compare_json(sample(), {}));
  EXPECT_EQ(j["schema"], kCompareSchema);
  EXPECT_EQ(j["base"]["path"], "base.json");
  EXPECT_EQ(j["options"]["threshold"], 0.05);
  EXPECT_EQ(j["summary"]["regressions"], 1);
  EXPECT_EQ(j["summary"]["new_failures"], 1);
  EXPECT_EQ(j["summary"]["fails_check"], true);
  ASSERT_EQ(j["items"].size(), 3u);
  EXPECT_EQ(j["items"][1]["latency"]["p_value"], 2.5e-9);
  EXPECT_EQ(j["items"][1]["layers"]["matched"][0]["delta_ms"], 0.5);
  EXPECT_EQ(j["items"][1]["layers"]["only_base"][0]["name"], "fc");
  EXPECT_FALSE(j["items"][2].contains("latency"));
}
