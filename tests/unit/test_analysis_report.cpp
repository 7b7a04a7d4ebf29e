// `rooflens analyze`'s tables come from the same column registry as `top`'s (reporters/columns.h): the terminal
// shows human units, CSV the exact integers under machine keys, Markdown puts model text in code spans.
#include <gtest/gtest.h>

#include "core/report.h"
#include "reporters/analysis_report.h"

using namespace rooflens;

namespace {
Report two_node_report() {
  Report r;
  r.model.name = "m";
  NodeAnalysis a;
  a.index = 0;
  a.name = "conv|`1`";
  a.op = "Conv";
  a.graph = "main";
  a.output_shapes = {{1, 64, 112, 112}};
  a.flops = 236027904;
  a.macs = 118013952;
  a.params = 9408;
  a.bytes_read = 639744;
  a.bytes_written = 3211264;
  a.intensity = 61.25;
  NodeAnalysis b;
  b.index = 1;
  b.name = "body_add";
  b.op = "Frobnicate";
  b.domain = "com.example";
  b.graph = "main/loop_1:body";
  b.output_shapes = {{}};
  b.shapes_resolved = false;
  b.cost_known = false;
  b.bytes_read = 8;
  r.model.analysis.nodes = {a, b};
  r.model.analysis.totals.flops = 236027904;
  OpTypeSummary s;
  s.op = "Conv";
  s.count = 1;
  s.flops = 236027904;
  r.model.analysis.op_types = {s};
  return r;
}
}  // namespace

TEST(AnalysisReport, CsvHasExactValuesUnderMachineKeys) {
  std::string csv = analysis_reporters().at("csv")(two_node_report(), {});
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "index,name,op,domain,graph,output_shapes,flops,macs,params,bytes,bytes_read,bytes_written,intensity,"
            "share,cost_known");
  EXPECT_NE(csv.find("0,conv|`1`,Conv,,main,1x64x112x112,236027904,118013952,9408,3851008,639744,3211264,61.25,1,true"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("1,body_add,Frobnicate,com.example,main/loop_1:body,,0,0,0,8,8,0,0,0,false"), std::string::npos) << csv;
}

TEST(AnalysisReport, TerminalTableUsesHumanUnitsAndSubgraphPaths) {
  TextTable t = node_table(two_node_report(), {});
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.columns[4].title, "FLOPs");
  EXPECT_EQ(t.rows[0][4], "236.03M");
  EXPECT_EQ(t.rows[0][7], "3.85MB");
  EXPECT_EQ(t.rows[0][9], "100.0%");
  EXPECT_EQ(t.rows[1][1], "loop_1:body/body_add");  // where the body node lives
  EXPECT_EQ(t.rows[1][2], "com.example:Frobnicate");
  EXPECT_EQ(t.rows[1][3], "?");                      // unresolved shape
  EXPECT_EQ(t.rows[1][4], "unknown");                // never a silent 0
}

TEST(AnalysisReport, MarkdownKeepsModelTextLiteral) {
  std::string md = analysis_reporters().at("md")(two_node_report(), {});
  // The name holds a pipe and backticks: a code span with a longer fence, the pipe escaped for the table.
  EXPECT_NE(md.find("`` conv\\|`1` ``"), std::string::npos) << md;
  EXPECT_NE(md.find("| `Conv` |"), std::string::npos) << md;
}

TEST(AnalysisReport, SortAndTopPickNodes) {
  AnalysisView v;
  v.sort = "bytes";
  v.top = 1;
  TextTable t = node_table(two_node_report(), v);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0][0], "0");
}
