// `rooflens top` (select_layers and its formats) and `rooflens export` (csv, md, trace) against a hand-built
// profile report whose numbers are known, plus a strict RFC 4180 parser to read the CSV back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/report.h"
#include "reporters/export.h"
#include "reporters/layer_query.h"
#include "reporters/report_text.h"
#include "reporters/top_report.h"
#include "support/backend_info.h"

using namespace rooflens;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// ---- a strict RFC 4180 reader: quoted fields with "" escapes, embedded commas and newlines, CRLF or LF
// record ends; a quote inside an unquoted field, text after a closing quote, a bare CR, an unterminated quote
// or records of different lengths are errors ----

using Csv = std::vector<std::vector<std::string>>;

Csv parse_csv_strict(const std::string& s) {
  Csv records;
  size_t i = 0, n = s.size();
  auto end_of_record = [&](size_t at) { return at >= n || s[at] == '\n' || (s[at] == '\r'); };
  while (i < n) {
    std::vector<std::string> record;
    while (true) {
      std::string field;
      if (i < n && s[i] == '"') {
        ++i;
        while (true) {
          if (i >= n) throw std::runtime_error("unterminated quoted field");
          if (s[i] == '"') {
            if (i + 1 < n && s[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          field += s[i++];
        }
        if (i < n && s[i] != ',' && !end_of_record(i)) throw std::runtime_error("text after a closing quote");
      } else {
        while (i < n && s[i] != ',' && !end_of_record(i)) {
          if (s[i] == '"') throw std::runtime_error("quote inside an unquoted field");
          field += s[i++];
        }
      }
      record.push_back(field);
      if (i < n && s[i] == ',') {
        ++i;
        continue;
      }
      if (i < n && s[i] == '\r') {
        if (i + 1 >= n || s[i + 1] != '\n') throw std::runtime_error("bare CR");
        ++i;
      }
      if (i < n) ++i;  // the LF
      break;
    }
    records.push_back(std::move(record));
  }
  for (const auto& r : records)
    if (r.size() != records.front().size())
      throw std::runtime_error("record with " + std::to_string(r.size()) + " fields, header has " +
                               std::to_string(records.front().size()));
  return records;
}

TEST(StrictCsv, ParserItselfIsStrict) {
  EXPECT_EQ(parse_csv_strict("a,b\n\"x,\"\"y\"\"\nz\",2\r\n"), (Csv{{"a", "b"}, {"x,\"y\"\nz", "2"}}));
  EXPECT_THROW(parse_csv_strict("a,b\nx\"y,2\n"), std::runtime_error);
  EXPECT_THROW(parse_csv_strict("a,b\n\"x\"y,2\n"), std::runtime_error);
  EXPECT_THROW(parse_csv_strict("a,b\n\"x,2\n"), std::runtime_error);
  EXPECT_THROW(parse_csv_strict("a,b\n1,2,3\n"), std::runtime_error);
  EXPECT_THROW(parse_csv_strict("a,b\r1,2\n"), std::runtime_error);
}

// Column index by header name.
size_t col(const Csv& csv, const std::string& name) {
  for (size_t i = 0; i < csv.front().size(); ++i)
    if (csv.front()[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

// ---- the hand-built report ----
// Run 1 (batch 1, threads 2): eight layers, 12.5 ms in all. Run 2 (batch 4, a dim named with HTML): two layers.

const std::string kWeird = "add, \"quoted\"\nline|pipe `tick` <script>alert(1)</script>";

Layer layer(const std::string& name, const std::string& op, double t, uint64_t flops, uint64_t bytes, double eff,
            const std::string& bound, double start, std::vector<std::string> nodes, uint64_t macs = 0) {
  Layer l;
  l.name = name;
  l.op = op;
  l.provider = "CPUExecutionProvider";
  l.onnx_nodes = std::move(nodes);
  l.time_ms = t;
  l.flops = flops;
  l.macs = macs;
  l.bytes = bytes;
  l.gflops = static_cast<double>(flops) / (t * 1e6);
  l.gbps = static_cast<double>(bytes) / (t * 1e6);
  l.intensity = bytes ? static_cast<double>(flops) / static_cast<double>(bytes) : 0;
  l.efficiency = eff;
  l.bound = bound;
  l.roof = bound == "compute" ? "fp32_fma x2" : bound.empty() ? "" : "L2 read x2";
  l.start_ms = start;
  l.input_shapes = {{1, 3, 8, 8}, {4, 3, 3, 3}};
  l.output_shapes = {{1, 4, 8, 8}};
  return l;
}

ProfileRun make_run(int64_t batch, std::map<std::string, int64_t> dims, std::vector<Layer> layers) {
  ProfileRun run;
  run.batch = batch;
  run.dims = std::move(dims);
  run.threads = 2;
  run.latency_ms = {20, 13.0, 15.0, 13.5, 13.25, 14.0, 14.5, 15.0, 0.5, 0.037};
  run.profiled_latency_ms = {5, 13.0, 14.0, 13.4, 13.3, 14.0, 14.0, 14.0, 0.4, 0.03};
  run.throughput_per_s = static_cast<double>(batch) * 1000 / 13.25;
  run.coverage = 0.94;
  run.peak_rss_bytes = 123456789;
  double total = 0;
  for (const auto& l : layers) total += l.time_ms;
  for (auto& l : layers) l.share = l.time_ms / total;
  for (const auto& l : layers) run.flops += l.flops;
  run.layers = std::move(layers);
  return run;
}

Report make_report() {
  Report r;
  r.tool.version = "0.1.0";
  r.model.name = "tiny";
  r.model.analysis.totals.nodes = 11;
  r.backends = {rooflens::testing::backend_info("onnxruntime", "1.30.0", {{"intraOpNumThreads", "2"}}, "onnxruntime-node 1.30.0")};
  r.runs.push_back(make_run(
      1, {{"batch", 1}},
      {
          layer("conv1", "Conv", 4.0, 8000000000, 4000000, 0.5, "compute", 0.0, {"conv1/Conv", "bn1/BN", "relu1/Relu"},
                4000000000),
          layer("relu_a", "Relu", 1.0, 1000000, 8000000, 0.25, "memory", 4.0, {"relu_a/Relu"}),
          layer("conv2", "Conv", 2.0, 2000000000, 2000000, 0.8, "compute", 5.0, {"conv2/Conv"}, 1000000000),
          layer("pool", "MaxPool", 0.5, 500000, 3000000, 0.1, "memory", 7.0, {"pool/MaxPool"}),
          layer("fc", "Gemm", 2.5, 1000000000, 50000000, 0.4, "memory", 7.5, {"fc/Gemm"}, 500000000),
          layer(kWeird, "Add", 0.25, 300000, 1200000, 0.2, "memory", 9.8, {"add/Add"}),  // overlaps fc's end
          layer("reorder", "ReorderOutput", 0.75, 0, 1000000, 0, "", 10.1, {"fc/Gemm"}),
          layer("relu_b", "Relu", 1.5, 3000000, 6000000, 0.3, "compute", 11.0, {"relu_b/Relu"}),
      }));
  r.runs.back().layers[6].alias = true;
  r.runs.push_back(make_run(4, {{"batch", 4}, {"seq<i>", 8}},
                            {layer("conv1", "Conv", 10.0, 32000000000, 16000000, 0.6, "compute", 0.0, {"conv1/Conv"}),
                             layer("fc", "Gemm", 6.0, 4000000000, 60000000, 0.5, "memory", 10.0, {"fc/Gemm"})}));
  Failure f;
  f.batch = 8;
  f.dims = {{"batch", 8}};
  f.threads = 2;
  f.stage = "run";
  f.kind = "timeout";
  f.message = "timed out, after 1 s";
  r.failures.push_back(f);
  r.warnings.push_back("unstable timings");
  return r;
}

const Report& report() {
  static const Report r = make_report();
  return r;
}

LayerSelection select(LayerQuery q) { return select_layers(report().runs[0], q); }

std::vector<std::string> names(const LayerSelection& s) {
  std::vector<std::string> out;
  for (const auto& r : s.rows) out.push_back(r.name);
  return out;
}

LayerQuery all() {
  LayerQuery q;
  q.top = 0;
  return q;
}

std::string top(TopView v, const std::string& format) { return top_formats().at(format)(run_top(report(), v)); }

// ---- top: selection ----

TEST(TopSelect, DefaultIsTenRowsByTimeDescendingWithSharesOfTheWholeRun) {
  LayerSelection s = select(LayerQuery{});
  EXPECT_EQ(names(s), (std::vector<std::string>{"conv1", "fc", "conv2", "relu_b", "relu_a", "reorder", "pool", kWeird}));
  EXPECT_EQ(s.layers_in_run, 8u);
  EXPECT_DOUBLE_EQ(s.run_time_ms, 12.5);
  EXPECT_DOUBLE_EQ(s.rows[0].share, 4.0 / 12.5);
  EXPECT_DOUBLE_EQ(s.rows[1].cumulative, 6.5 / 12.5);
  EXPECT_DOUBLE_EQ(s.rows.back().cumulative, 1.0);
  EXPECT_DOUBLE_EQ(s.rows[0].gflops, 2000);
  EXPECT_DOUBLE_EQ(s.rows[0].flops, 8e9);
  EXPECT_EQ(s.rows[0].index, 0);
  EXPECT_EQ(s.rows[0].onnx_nodes.size(), 3u);
}

TEST(TopSelect, TopCutsAfterSortingAndZeroMeansAll) {
  LayerQuery q;
  q.top = 3;
  LayerSelection s = select(q);
  EXPECT_EQ(names(s), (std::vector<std::string>{"conv1", "fc", "conv2"}));
  EXPECT_EQ(s.rows_before_top, 8u);
  EXPECT_EQ(select(all()).rows.size(), 8u);
}

TEST(TopSelect, TypeFilterIsExactAndRepeatable) {
  LayerQuery q = all();
  q.types = {"Conv"};
  EXPECT_EQ(names(select(q)), (std::vector<std::string>{"conv1", "conv2"}));
  q.types = {"Gemm", "Relu"};
  EXPECT_EQ(names(select(q)), (std::vector<std::string>{"fc", "relu_b", "relu_a"}));
  q.types = {"conv"};
  EXPECT_TRUE(select(q).rows.empty());
  // Shares stay shares of the whole run: filtering never inflates them.
  q.types = {"Conv"};
  EXPECT_DOUBLE_EQ(select(q).rows.back().cumulative, 6.0 / 12.5);
  EXPECT_DOUBLE_EQ(select(q).matched_time_ms, 6.0);
}

TEST(TopSelect, NameRegexSearchesLayerAndOnnxNodeNames) {
  LayerQuery q = all();
  q.name_regex = "^conv";
  EXPECT_EQ(names(select(q)), (std::vector<std::string>{"conv1", "conv2"}));
  q.name_regex = "bn1";  // an ONNX node fused into conv1
  EXPECT_EQ(names(select(q)), (std::vector<std::string>{"conv1"}));
  q.name_regex = "relu_[ab]$";
  EXPECT_EQ(names(select(q)), (std::vector<std::string>{"relu_b", "relu_a"}));
  q.name_regex = "<script>";
  EXPECT_EQ(names(select(q)), (std::vector<std::string>{kWeird}));
  q.name_regex = "(";
  try {
    select(q);
    FAIL() << "a bad regex must be a usage error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--name"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_name_regex("[a-"), UsageError);
  EXPECT_NO_THROW(check_name_regex("layer4\\..*conv"));
}

TEST(TopSelect, OrderByEveryColumnBothWays) {
  auto order = [](const std::string& by) {
    LayerQuery q = all();
    q.order_by = by;
    return names(select(q));
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(order("+time"), (V{kWeird, "pool", "reorder", "relu_a", "relu_b", "conv2", "fc", "conv1"}));
  EXPECT_EQ(order("flops"), (V{"conv1", "conv2", "fc", "relu_b", "relu_a", "pool", kWeird, "reorder"}));
  EXPECT_EQ(order("+flops"), (V{"reorder", kWeird, "pool", "relu_a", "relu_b", "fc", "conv2", "conv1"}));
  // Ties keep execution order.
  EXPECT_EQ(order("macs"), (V{"conv1", "conv2", "fc", "relu_a", "pool", kWeird, "reorder", "relu_b"}));
  EXPECT_EQ(order("bytes"), (V{"fc", "relu_a", "relu_b", "conv1", "pool", "conv2", kWeird, "reorder"}));
  EXPECT_EQ(order("gflops"), (V{"conv1", "conv2", "fc", "relu_b", kWeird, "relu_a", "pool", "reorder"}));
  EXPECT_EQ(order("gbps"), (V{"fc", "relu_a", "pool", kWeird, "relu_b", "reorder", "conv1", "conv2"}));
  EXPECT_EQ(order("intensity"), (V{"conv1", "conv2", "fc", "relu_b", kWeird, "pool", "relu_a", "reorder"}));
  EXPECT_EQ(order("efficiency"), (V{"conv2", "conv1", "fc", "relu_b", "relu_a", kWeird, "pool", "reorder"}));
  EXPECT_EQ(order("+efficiency"), (V{"reorder", "pool", kWeird, "relu_a", "relu_b", "fc", "conv1", "conv2"}));
  for (const std::string bad : {"latency", "+", "", "-time", "Time"}) {
    try {
      order(bad);
      FAIL() << bad << " must be a usage error";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--order-by"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(keys_of_sort().size(), layer_sort_keys().size());
}

TEST(TopSelect, AggregateByTypeWithEachFunction) {
  LayerQuery q = all();
  q.aggregate_by = "type";
  q.aggregate = "sum";
  LayerSelection s = select(q);
  ASSERT_TRUE(s.aggregated);
  // Relu and Gemm tie at 2.5 ms: first appearance in execution order wins.
  EXPECT_EQ(names(s), (std::vector<std::string>{"Conv", "Relu", "Gemm", "ReorderOutput", "MaxPool", "Add"}));
  const LayerRow& conv = s.rows[0];
  EXPECT_EQ(conv.layers, 2);
  EXPECT_DOUBLE_EQ(conv.time_ms, 6.0);
  EXPECT_DOUBLE_EQ(conv.share, 6.0 / 12.5);
  EXPECT_DOUBLE_EQ(conv.flops, 1e10);
  EXPECT_DOUBLE_EQ(conv.macs, 5e9);
  EXPECT_DOUBLE_EQ(conv.bytes, 6e6);
  EXPECT_DOUBLE_EQ(conv.gflops, 1e10 / 6e6);
  EXPECT_DOUBLE_EQ(conv.gbps, 1.0);
  EXPECT_DOUBLE_EQ(conv.intensity, 1e10 / 6e6);
  EXPECT_DOUBLE_EQ(conv.efficiency, (4 * 0.5 + 2 * 0.8) / 6);  // time-weighted: ideal time / actual time
  EXPECT_EQ(conv.bound, "compute");
  EXPECT_EQ(conv.onnx_nodes.size(), 4u);
  EXPECT_EQ(s.rows[1].bound, "mixed");  // relu_a memory, relu_b compute
  EXPECT_EQ(s.rows[3].bound, "");       // no roof for the alias
  EXPECT_TRUE(s.rows[3].alias);
  EXPECT_DOUBLE_EQ(s.rows.back().cumulative, 1.0);

  q.aggregate = "mean";
  s = select(q);
  EXPECT_EQ(names(s), (std::vector<std::string>{"Conv", "Gemm", "Relu", "ReorderOutput", "MaxPool", "Add"}));
  EXPECT_DOUBLE_EQ(s.rows[0].time_ms, 3.0);
  EXPECT_DOUBLE_EQ(s.rows[0].flops, 5e9);
  EXPECT_DOUBLE_EQ(s.rows[0].efficiency, 0.65);
  EXPECT_DOUBLE_EQ(s.rows[2].time_ms, 1.25);

  q.aggregate = "max";
  s = select(q);
  EXPECT_EQ(names(s), (std::vector<std::string>{"Conv", "Gemm", "Relu", "ReorderOutput", "MaxPool", "Add"}));
  EXPECT_DOUBLE_EQ(s.rows[0].time_ms, 4.0);
  EXPECT_DOUBLE_EQ(s.rows[0].flops, 8e9);
  EXPECT_DOUBLE_EQ(s.rows[0].efficiency, 0.8);
  EXPECT_DOUBLE_EQ(s.rows[2].time_ms, 1.5);

  q.aggregate = "min";
  s = select(q);
  EXPECT_EQ(names(s), (std::vector<std::string>{"Gemm", "Conv", "Relu", "ReorderOutput", "MaxPool", "Add"}));
  EXPECT_DOUBLE_EQ(s.rows[1].time_ms, 2.0);
  EXPECT_DOUBLE_EQ(s.rows[1].flops, 2e9);
  EXPECT_DOUBLE_EQ(s.rows[1].efficiency, 0.5);
  EXPECT_DOUBLE_EQ(s.rows[2].time_ms, 1.0);

  q.aggregate = "median";
  EXPECT_THROW(select(q), UsageError);
  q.aggregate = "sum";
  q.aggregate_by = "name";
  EXPECT_THROW(select(q), UsageError);
}

TEST(TopSelect, TimeFilterIsInclusiveAndRunsBeforeAggregation) {
  LayerQuery q = all();
  q.min_time_ms = 1.0;
  EXPECT_EQ(names(select(q)), (std::vector<std::string>{"conv1", "fc", "conv2", "relu_b", "relu_a"}));
  q = all();
  q.max_time_ms = 1.0;
  EXPECT_EQ(names(select(q)), (std::vector<std::string>{"relu_a", "reorder", "pool", kWeird}));
  q.min_time_ms = 0.5;
  q.max_time_ms = 2.0;
  EXPECT_EQ(names(select(q)), (std::vector<std::string>{"conv2", "relu_b", "relu_a", "reorder", "pool"}));
  // filter -> time filter -> aggregate: only conv1 survives --min-time 3, so the Conv row holds one layer
  // (aggregating first would have let the 6 ms Conv sum through with both).
  q = all();
  q.min_time_ms = 3.0;
  q.aggregate_by = "type";
  LayerSelection s = select(q);
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].layers, 1);
  EXPECT_DOUBLE_EQ(s.rows[0].time_ms, 4.0);
  // type filter first, then time: only relu_b of the Relus.
  q = all();
  q.types = {"Relu"};
  q.min_time_ms = 1.2;
  q.aggregate_by = "type";
  s = select(q);
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].layers, 1);
  EXPECT_DOUBLE_EQ(s.rows[0].time_ms, 1.5);
  EXPECT_EQ(s.layers_matched, 1u);
  // sort -> top on groups: the two smallest op types by summed time.
  q = all();
  q.aggregate_by = "type";
  q.order_by = "+time";
  q.top = 2;
  EXPECT_EQ(names(select(q)), (std::vector<std::string>{"Add", "MaxPool"}));
}

// ---- top: runs, print-only, formats ----

TEST(TopView, BatchChoosesTheRun) {
  EXPECT_EQ(choose_run(report(), std::nullopt), 0u);
  EXPECT_EQ(choose_run(report(), 1), 0u);
  EXPECT_EQ(choose_run(report(), 4), 1u);
  try {
    choose_run(report(), 3);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--batch 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1, 4"), std::string::npos) << e.what();
  }
  TopView v;
  v.batch = 4;
  TopResult t = run_top(report(), v);
  EXPECT_EQ(t.run_index, 1u);
  EXPECT_EQ(names(t.selection), (std::vector<std::string>{"conv1", "fc"}));
  EXPECT_DOUBLE_EQ(t.selection.rows[0].share, 10.0 / 16.0);
  std::string text = top(v, "table");
  EXPECT_NE(text.find("2 of 2: batch=4 seq<i>=8 threads=2"), std::string::npos) << text;
}

TEST(TopView, PrintOnlySummaryOrLayers) {
  TopView v;
  v.source = "r.json";
  std::string both = top(v, "table");
  EXPECT_NE(both.find("model    tiny"), std::string::npos) << both;
  EXPECT_NE(both.find("GFLOP/s"), std::string::npos) << both;
  v.print_only = "summary";
  std::string summary = top(v, "table");
  EXPECT_NE(summary.find("model    tiny"), std::string::npos) << summary;
  EXPECT_NE(summary.find("8 in the run, 8 selected: 12.500 ms (100.0% of 12.500 ms)"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("GFLOP/s  "), std::string::npos) << summary;
  EXPECT_EQ(summary.find("conv1"), std::string::npos) << summary;
  v.print_only = "layers";
  std::string layers = top(v, "table");
  EXPECT_EQ(layers.find("model"), std::string::npos) << layers;
  EXPECT_EQ(layers.rfind("#", 0), 0u) << layers;
  EXPECT_NE(layers.find("conv1"), std::string::npos) << layers;

  v.print_only = "summary";
  json j = json::parse(top(v, "json"));
  EXPECT_TRUE(j.contains("summary"));
  EXPECT_FALSE(j.contains("rows"));
  v.print_only = "layers";
  j = json::parse(top(v, "json"));
  EXPECT_FALSE(j.contains("summary"));
  EXPECT_EQ(j["rows"].size(), 8u);
}

TEST(TopView, TableShowsHumanUnitsAndClipsLongCells) {
  TopView v;
  v.query.top = 2;
  std::string text = top(v, "table");
  for (const char* title : {"#", "ms", "share", "cum", "layer", "op", "ONNX nodes", "FLOPs", "GFLOP/s", "bytes",
                            "GB/s", "FLOP/B", "bound", "eff", "inputs", "outputs"})
    EXPECT_NE(text.find(title), std::string::npos) << title << "\n" << text;
  EXPECT_NE(text.find("conv1/Conv +2"), std::string::npos) << text;
  EXPECT_NE(text.find("8.00G"), std::string::npos) << text;
  EXPECT_NE(text.find("2000.0"), std::string::npos) << text;
  EXPECT_NE(text.find("32.0%"), std::string::npos) << text;  // 4 / 12.5
  EXPECT_NE(text.find("52.0%"), std::string::npos) << text;  // cumulative (4 + 2.5) / 12.5
  EXPECT_NE(text.find("1x3x8x8, 4x3x3x3"), std::string::npos) << text;
  EXPECT_NE(text.find("(2 of 8 layers; --top 0 shows all)"), std::string::npos) << text;
  v.query.aggregate_by = "type";
  text = top(v, "table");
  EXPECT_NE(text.find("layers"), std::string::npos) << text;
  EXPECT_EQ(text.find("inputs"), std::string::npos) << text;
  EXPECT_NE(text.find("(2 of 6 op types; --top 0 shows all)"), std::string::npos) << text;
}

TEST(TopView, CsvIsStrictAndExact) {
  TopView v;
  v.query.top = 0;
  Csv csv = parse_csv_strict(top(v, "csv"));
  ASSERT_EQ(csv.size(), 9u);
  EXPECT_EQ(csv[0][0], "rank");
  EXPECT_EQ(csv[1][col(csv, "name")], "conv1");
  EXPECT_EQ(csv[1][col(csv, "time_ms")], "4");
  EXPECT_EQ(csv[1][col(csv, "share")], "0.32");
  EXPECT_EQ(csv[1][col(csv, "flops")], "8000000000");
  EXPECT_EQ(csv[1][col(csv, "macs")], "4000000000");
  EXPECT_EQ(csv[1][col(csv, "onnx_nodes")], "conv1/Conv;bn1/BN;relu1/Relu");
  EXPECT_EQ(csv[1][col(csv, "input_shapes")], "1x3x8x8;4x3x3x3");
  EXPECT_EQ(csv[1][col(csv, "cost_known")], "true");
  EXPECT_EQ(csv[8][col(csv, "name")], kWeird);  // commas, quotes, newline, pipes survive
  EXPECT_EQ(csv[8][col(csv, "time_ms")], "0.25");

  v.print_only = "summary";
  Csv summary = parse_csv_strict(top(v, "csv"));
  EXPECT_EQ(summary[0], (std::vector<std::string>{"key", "value"}));
  std::map<std::string, std::string> kv;
  for (const auto& row : summary) kv[row[0]] = row[1];
  EXPECT_EQ(kv["model"], "tiny");
  EXPECT_EQ(kv["layers.in_run"], "8");
  EXPECT_EQ(kv["layers.run_time_ms"], "12.5");
  EXPECT_EQ(kv["run.batch"], "1");
  EXPECT_EQ(kv["e2e.median_ms"], "13.25");
}

TEST(TopView, JsonCarriesExactValuesAndTheQuery) {
  TopView v;
  v.query.types = {"Conv", "Add"};
  v.query.order_by = "+flops";
  json j = json::parse(top(v, "json"));
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_EQ(j["rows"][0]["name"], kWeird);
  EXPECT_EQ(j["rows"][0]["rank"], 1);
  EXPECT_EQ(j["rows"][2]["name"], "conv1");
  EXPECT_EQ(j["rows"][2]["flops"].get<double>(), 8e9);
  EXPECT_EQ(j["rows"][2]["onnx_nodes"].size(), 3u);
  EXPECT_EQ(j["rows"][2]["input_shapes"][1].get<std::vector<int64_t>>(), (std::vector<int64_t>{4, 3, 3, 3}));
  EXPECT_DOUBLE_EQ(j["rows"][2]["cumulative"].get<double>(), (0.25 + 2 + 4) / 12.5);
  EXPECT_EQ(j["summary"]["query"]["types"].get<std::vector<std::string>>(), (std::vector<std::string>{"Conv", "Add"}));
  EXPECT_EQ(j["summary"]["query"]["order_by"], "+flops");
  EXPECT_EQ(j["summary"]["layers"]["matched"], 3);
  EXPECT_FALSE(j["aggregated"].get<bool>());
}

TEST(TopView, MarkdownKeepsModelTextLiteral) {
  TopView v;
  v.query.top = 0;
  std::string md = top(v, "md");
  EXPECT_NE(md.find("### rooflens top: `tiny`"), std::string::npos) << md;
  EXPECT_NE(md.find("| # | ms | share |"), std::string::npos) << md;
  EXPECT_NE(md.find("| ---: |"), std::string::npos) << md;
  // The weird name: one line, pipe escaped, inside a code span longer than its backtick run.
  EXPECT_NE(md.find("``add, \"quoted\" line\\|pipe `tick` <script>alert(1)</script>``"), std::string::npos) << md;
  for (size_t at = md.find("<script>"); at != std::string::npos; at = md.find("<script>", at + 1))
    EXPECT_EQ(md.rfind("``", at), md.rfind("``add", at)) << "raw <script> outside a code span";
}

TEST(TopView, LayerlessRunsAndForeignReports) {
  Report r = report();
  r.runs[0].layers.clear();
  TopView v;
  EXPECT_THROW(run_top(r, v), UserError);
  v.print_only = "summary";
  EXPECT_NO_THROW(run_top(r, v));

  fs::path dir = fs::temp_directory_path() / ("rooflens-top-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Report analyze_only;
  analyze_only.model.name = "tiny";
  std::ofstream((dir / "analyze.json").string()) << report_to_json(analyze_only);
  try {
    load_profile_report((dir / "analyze.json").string());
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("not a profile report"), std::string::npos) << e.what();
  }
  std::ofstream((dir / "junk.json").string()) << "{\"schema\": 3";
  EXPECT_THROW(load_profile_report((dir / "junk.json").string()), UserError);
  EXPECT_THROW(load_profile_report((dir / "missing.json").string()), UserError);
  std::ofstream((dir / "good.json").string()) << report_to_json(report());
  EXPECT_EQ(load_profile_report((dir / "good.json").string()).runs.size(), 2u);
  fs::remove_all(dir);
}

// ---- export ----

TEST(ExportCsv, LayersOneRowPerLayerPerRunWithConfigColumns) {
  Csv csv = parse_csv_strict(export_csv(report(), ExportOptions{}));
  ASSERT_EQ(csv.size(), 1u + 8 + 2);
  EXPECT_EQ((std::vector<std::string>(csv[0].begin(), csv[0].begin() + 6)),
            (std::vector<std::string>{"run", "batch", "threads", "dim:batch", "dim:seq<i>", "index"}));
  EXPECT_EQ(csv[1][col(csv, "run")], "1");
  EXPECT_EQ(csv[1][col(csv, "dim:seq<i>")], "");
  EXPECT_EQ(csv[1][col(csv, "name")], "conv1");
  EXPECT_EQ(csv[1][col(csv, "flops")], "8000000000");
  EXPECT_EQ(csv[1][col(csv, "gflops")], "2000");
  EXPECT_EQ(csv[6][col(csv, "name")], kWeird);
  EXPECT_EQ(csv[6][col(csv, "start_ms")], "9.8");
  EXPECT_EQ(csv[7][col(csv, "alias")], "true");
  EXPECT_EQ(csv[9][col(csv, "run")], "2");
  EXPECT_EQ(csv[9][col(csv, "batch")], "4");
  EXPECT_EQ(csv[9][col(csv, "dim:seq<i>")], "8");
  EXPECT_EQ(csv[9][col(csv, "index")], "0");
}

TEST(ExportCsv, E2eOneRowPerRunAndPerFailure) {
  ExportOptions o;
  o.what = "e2e";
  Csv csv = parse_csv_strict(export_csv(report(), o));
  ASSERT_EQ(csv.size(), 1u + 2 + 1);
  EXPECT_EQ(csv[1][col(csv, "status")], "ok");
  EXPECT_EQ(csv[1][col(csv, "median_ms")], "13.25");
  EXPECT_EQ(csv[1][col(csv, "layers")], "8");
  EXPECT_EQ(csv[2][col(csv, "throughput_per_s")], exact(4000 / 13.25));
  EXPECT_EQ(csv[3][col(csv, "status")], "timeout");
  EXPECT_EQ(csv[3][col(csv, "batch")], "8");
  EXPECT_EQ(csv[3][col(csv, "message")], "timed out, after 1 s");
  EXPECT_EQ(csv[3][col(csv, "median_ms")], "");
  o.what = "both";
  EXPECT_THROW(export_csv(report(), o), UsageError);
}

TEST(ExportCsv, E2eRunToRunColumnsFromRepetitions) {
  Report r = report();
  // --repeat 3: runs of 3, 2 and 4 samples with medians 10, 12.5 and 11.25; all nine samples have median 11.
  r.runs[0].latencies_ms = {9, 10, 11, 12, 13, 10.5, 11, 11.5, 30};
  r.runs[0].repetitions = {3, 2, 4};
  r.runs[1].latencies_ms = {13, 14, 12};  // written before --repeat: one run of every sample
  Csv csv = parse_csv_strict(export_csv(r, ExportOptions{.what = "e2e"}));
  EXPECT_EQ(csv[1][col(csv, "runs")], "3");
  EXPECT_EQ(csv[1][col(csv, "run_median_min_ms")], "10");
  EXPECT_EQ(csv[1][col(csv, "run_median_max_ms")], "12.5");
  EXPECT_EQ(csv[1][col(csv, "run_spread")], exact(2.5 / 11));
  EXPECT_EQ(csv[2][col(csv, "runs")], "1");
  EXPECT_EQ(csv[2][col(csv, "run_median_min_ms")], "13");
  EXPECT_EQ(csv[2][col(csv, "run_spread")], "0");
  EXPECT_EQ(csv[3][col(csv, "runs")], "");  // the failed configuration has no runs
}

TEST(ExportMarkdown, PullRequestCommentShape) {
  std::string md = export_markdown(report(), ExportOptions{});
  EXPECT_EQ(md.rfind("## rooflens profile: `tiny`\n", 0), 0u) << md;
  EXPECT_NE(md.find("`onnxruntime-node 1.30.0` with `intraOpNumThreads=2`"), std::string::npos) << md;
  EXPECT_NE(md.find("| `batch=1 threads=2` | 13.250 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `batch=4 seq<i>=8 threads=2` | 13.250 |"), std::string::npos) << md;
  EXPECT_NE(md.find("### Top 8 layers, `batch=1 threads=2`"), std::string::npos) << md;
  EXPECT_NE(md.find("<details><summary>Top 2 layers, batch=4 seq&lt;i&gt;=8 threads=2</summary>"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| 1 | 4.000 | 32.0% | 32.0% | `conv1` | `Conv` | 8.00G |"), std::string::npos) << md;
  EXPECT_NE(md.find("8 of 8 layers; 100.0% of layer time."), std::string::npos) << md;
  EXPECT_NE(md.find("### Failures"), std::string::npos) << md;
  EXPECT_NE(md.find("`unstable timings`"), std::string::npos) << md;
  Report with_roofs = report();
  with_roofs.hardware = HardwareInfo{};
  with_roofs.hardware->warnings = {"L3 read at 2 threads (86.0 GB/s) is below 1 thread(s) (104.5 GB/s)"};
  EXPECT_NE(export_markdown(with_roofs, ExportOptions{}).find("- `roofs: L3 read at 2 threads (86.0 GB/s)"),
            std::string::npos);
  ExportOptions o;
  o.top_layers = 3;
  md = export_markdown(report(), o);
  EXPECT_NE(md.find("### Top 3 layers"), std::string::npos) << md;
  EXPECT_NE(md.find("3 of 8 layers; 68.0% of layer time."), std::string::npos) << md;  // (4 + 2.5 + 2) / 12.5
}

TEST(ExportTrace, CompleteEventsPerRunTrackInOrderWithoutOverlap) {
  json doc = json::parse(export_trace(report(), ExportOptions{}));
  ASSERT_TRUE(doc["traceEvents"].is_array());
  std::map<int, std::vector<json>> per_tid;
  std::map<int, std::string> thread_names;
  bool process_named = false;
  for (const auto& e : doc["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e.dump();
    if (e["ph"] == "M") {
      if (e["name"] == "process_name") process_named = e["args"]["name"] == "rooflens profile: tiny on onnxruntime-node 1.30.0";
      if (e["name"] == "thread_name") thread_names[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
      continue;
    }
    ASSERT_EQ(e["ph"], "X") << e.dump();
    for (const char* k : {"ts", "dur", "tid", "cat", "args"}) ASSERT_TRUE(e.contains(k)) << k << " in " << e.dump();
    EXPECT_TRUE(e["ts"].is_number() && e["dur"].is_number() && e["pid"].is_number() && e["tid"].is_number());
    EXPECT_GE(e["dur"].get<double>(), 0);
    for (const char* k : {"op", "onnx_nodes", "flops", "bytes", "input_shapes", "output_shapes"})
      EXPECT_TRUE(e["args"].contains(k)) << k;
    per_tid[e["tid"].get<int>()].push_back(e);
  }
  EXPECT_TRUE(process_named);
  EXPECT_EQ(thread_names, (std::map<int, std::string>{{1, "run 1: batch=1 threads=2"},
                                                      {2, "run 2: batch=4 seq<i>=8 threads=2"}}));
  ASSERT_EQ(per_tid[1].size(), 8u);
  ASSERT_EQ(per_tid[2].size(), 2u);
  for (const auto& [tid, events] : per_tid) {
    for (size_t i = 1; i < events.size(); ++i) {
      double prev_end = events[i - 1]["ts"].get<double>() + events[i - 1]["dur"].get<double>();
      EXPECT_GE(events[i]["ts"].get<double>(), prev_end - 1e-9) << "tid " << tid << " event " << i;
    }
  }
  const auto& run1 = per_tid[1];
  EXPECT_EQ(run1[0]["name"], "conv1");
  EXPECT_EQ(run1[0]["cat"], "Conv");
  EXPECT_DOUBLE_EQ(run1[0]["ts"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(run1[0]["dur"].get<double>(), 4000);
  EXPECT_DOUBLE_EQ(run1[1]["ts"].get<double>(), 4000);
  EXPECT_EQ(run1[0]["args"]["flops"], 8000000000u);
  EXPECT_EQ(run1[0]["args"]["onnx_nodes"].size(), 3u);
  EXPECT_EQ(run1[5]["name"], kWeird);                       // escaped by the JSON writer, read back intact
  EXPECT_DOUBLE_EQ(run1[5]["ts"].get<double>(), 10000);     // recorded 9.8 ms, but fc runs until 10 ms
  EXPECT_DOUBLE_EQ(run1[5]["args"]["recorded_start_ms"].get<double>(), 9.8);
  EXPECT_DOUBLE_EQ(run1[6]["ts"].get<double>(), 10250);
  EXPECT_DOUBLE_EQ(run1[7]["ts"].get<double>(), 11000);     // back on its recorded start
}

TEST(ExportRegistry, OffersCsvMdTrace) {
  std::vector<std::string> keys;
  for (const auto& kv : exporters()) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"csv", "md", "trace"}));
  EXPECT_EQ(csv_tables(), (std::vector<std::string>{"layers", "e2e"}));
}

TEST(ReportText, CodeSpansAndNumbers) {
  EXPECT_EQ(md_code("a`b"), "``a`b``");
  EXPECT_EQ(md_code("`x"), "`` `x ``");
  EXPECT_EQ(md_code("a\nb"), "`a b`");
  EXPECT_EQ(md_code(""), "");
  EXPECT_EQ(exact(0.1), "0.1");
  EXPECT_EQ(exact(8e9), "8000000000");
  EXPECT_EQ(percent(0.3204), "32.0%");
  EXPECT_EQ(shapes_text({{1, -1}, {}}), "1x?, scalar");
  EXPECT_EQ((RunKey{"", 4, {{"batch", 4}, {"seq", 128}}, 0}.label()), "batch=4 seq=128");
  EXPECT_EQ((RunKey{"opencv", 1, {}, 2}.label()), "opencv · batch=1 threads=2");
  EXPECT_EQ((RunKey{"", 0, {{"seq", 64}}, 0}.label()), "seq=64");  // as requested: the model's own batch
  EXPECT_EQ(RunKey{}.label(), "default");
}

}  // namespace

namespace {

// The summary's "roofs:" line names what the roofs' source recorded and leaves the rest out: a datasheet has no
// measurement time (it read "datasheet  on ..." with a blank).
TEST(RoofsText, LeavesOutWhatTheSourceDidNotRecord) {
  rooflens::HardwareInfo h;
  h.source = "datasheet";
  h.machine.model = "Intel Xeon Platinum 8480+";
  EXPECT_EQ(rooflens::roofs_text(h), "datasheet on Intel Xeon Platinum 8480+");
  h.source = "measured";
  h.quick = true;
  h.measured_at = "2026-11-23T23:24:39Z";
  EXPECT_EQ(rooflens::roofs_text(h), "measured (quick) 2026-11-23T23:24:39Z on Intel Xeon Platinum 8480+");
  h.machine.model.clear();
  EXPECT_EQ(rooflens::roofs_text(h), "measured (quick) 2026-11-23T23:24:39Z");
}

}  // namespace
