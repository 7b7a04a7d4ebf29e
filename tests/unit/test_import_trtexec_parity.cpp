// trtexec imports keep every layer of the engine. The project's own engines in the layouts of TREx's sample plans
// (tests/fixtures/import/trtexec/make_trex_parity.py): an A100 fp16 ResNet-18 (36 layers, 11 NoOp at 0 ms), its
// int8 QAT twin (37, 2 NoOp) and a TensorFlow ResNet-50 on an RTX 3090 (103, 31 NoOp). What each test expects is
// counted here from the fixture files themselves, never from the importer: the graph's Layers, TREx's rule for its
// report card's layer count (every layer but Constant, NoOp and shape_call), the profile's rows and their Σ.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "assembly/assemble.h"
#include "importers/driver/import.h"
#include "importers/registry/registry.h"
#include "lint/lint.h"
#include "reporters/import_summary.h"
#include "support/import_fixtures.h"

namespace rooflens {
namespace {

using njson = nlohmann::json;  // not "json": rooflens::json (core/json_fields.h) may share the unity batch

struct Engine {
  const char* folder;
  bool has_metadata;
};
const Engine kEngines[] = {{"resnet18_fp16", true}, {"resnet18_qat", false}, {"tf_resnet50_fp32", true}};

std::string part(const Engine& e, const std::string& what) {
  return std::string("trtexec/") + e.folder + "/" + e.folder + ".engine." + what + ".json";
}

std::vector<std::string> paths(const Engine& e) {
  std::vector<std::string> out{test::fixture_path(part(e, "graph")), test::fixture_path(part(e, "profile"))};
  if (e.has_metadata) out.push_back(test::fixture_path(part(e, "profile.metadata")));
  return out;
}

// What the files say, read with nothing of the importer's.
struct PlanFacts {
  size_t layers = 0, trex_layers = 0, reformatters = 0, timed_reformatters = 0, zero_rows = 0;
  double sum_average_ms = 0, sum_median_ms = 0;
};

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

PlanFacts facts_of(const Engine& e) {
  PlanFacts f;
  njson graph = njson::parse(test::fixture(part(e, "graph")).text);
  for (const auto& l : graph.at("Layers")) {
    std::string type = l.at("LayerType");
    ++f.layers;
    if (type != "Constant" && type != "NoOp" && type != "shape_call") ++f.trex_layers;
    if (starts_with(l.at("Name"), "Reformatting CopyNode ")) {
      ++f.reformatters;
      if (type == "Reformat") ++f.timed_reformatters;
    }
  }
  for (const auto& row : njson::parse(test::fixture(part(e, "profile")).text)) {
    if (!row.contains("name")) continue;  // the iteration count
    f.sum_average_ms += row.at("averageMs").get<double>();
    f.sum_median_ms += row.at("medianMs").get<double>();
    if (row.at("averageMs").get<double>() == 0) ++f.zero_rows;
  }
  return f;
}

ImportResult import_engine(const Engine& e, const std::string& device = "") {
  ImportSpec spec;
  spec.format = "trtexec";
  spec.files = paths(e);
  spec.device = device;
  return run_import(spec);
}

TEST(ImportTrtexecParity, EveryLayerOfThePlanIsKeptWithTheProfilesTime) {
  for (const Engine& e : kEngines) {
    SCOPED_TRACE(e.folder);
    PlanFacts want = facts_of(e);
    ImportResult got = import_engine(e);
    ASSERT_EQ(got.report.runs.size(), 1u);
    const ProfileRun& run = got.report.runs[0];
    ASSERT_EQ(run.layers.size(), want.layers);
    double sum_ms = 0, sum_mean = 0;
    size_t zero = 0, reformats = 0;
    for (const auto& l : run.layers) {
      sum_ms += l.time_ms;
      sum_mean += l.mean_ms.value_or(0);
      if (l.time_ms == 0) ++zero;
      if (l.inserted_for == "reformat") ++reformats;
    }
    EXPECT_NEAR(sum_ms, want.sum_median_ms, 1e-9);
    EXPECT_NEAR(sum_mean, want.sum_average_ms, 1e-9);
    EXPECT_EQ(zero, want.zero_rows);
    EXPECT_EQ(reformats, want.reformatters);  // the elided ones too
    for (const auto& w : run.warnings) EXPECT_EQ(w.find("profile"), std::string::npos) << w;  // rows all joined
  }
}

TEST(ImportTrtexecParity, TheReadLineAndSummaryGiveTrexsCountAndTheZeroTimeLayers) {
  for (const Engine& e : kEngines) {
    SCOPED_TRACE(e.folder);
    PlanFacts want = facts_of(e);
    ImportResult got = import_engine(e);
    ASSERT_FALSE(got.read.empty());
    const std::string& graph_line = got.read[0];
    EXPECT_NE(graph_line.find(": layer info, " + std::to_string(want.layers) + " layers ("), std::string::npos)
        << graph_line;
    EXPECT_NE(graph_line.find("TREx's report card counts " + std::to_string(want.trex_layers) + ")"), std::string::npos)
        << graph_line;
    std::string summary = import_summary(got.report);
    EXPECT_NE(summary.find("layers   " + std::to_string(want.layers) + ", total "), std::string::npos) << summary;
    EXPECT_NE(summary.find("; " + std::to_string(want.zero_rows) + " at 0 ms\n"), std::string::npos) << summary;
    std::string inserted = "inserted " + std::to_string(want.reformatters) + " reformat layer(s) by the runtime, ";
    EXPECT_NE(summary.find(inserted), std::string::npos) << summary;
    std::string elided = "(" + std::to_string(want.reformatters - want.timed_reformatters) + " of them at 0 ms)";
    EXPECT_NE(summary.find(elided), std::string::npos) << summary;
  }
}

TEST(ImportTrtexecParity, ZeroTimeLayersStayOffTheRoofline) {
  for (const Engine& e : kEngines) {
    SCOPED_TRACE(e.folder);
    ImportResult got = import_engine(e, "a100");
    ASSERT_FALSE(got.roofs.empty());
    size_t placed = 0;
    for (const auto& l : got.report.runs[0].layers) {
      for (double v : {l.share, l.gflops, l.gbps, l.intensity, l.efficiency}) EXPECT_TRUE(std::isfinite(v)) << l.name;
      if (l.time_ms > 0) {
        placed += l.bound.empty() ? 0 : 1;
        continue;
      }
      EXPECT_EQ(l.share, 0) << l.name;
      EXPECT_EQ(l.gflops, 0) << l.name;
      EXPECT_EQ(l.efficiency, 0) << l.name;
      EXPECT_EQ(l.bound, "") << l.name;
      EXPECT_EQ(l.bytes, 0u) << l.name;  // an elided layer moves nothing
    }
    EXPECT_GT(placed, 0u);  // the timed convolutions are placed
  }
}

TEST(ImportTrtexecParity, LintNamesOnlyTheReformatsThatTookTime) {
  for (const Engine& e : kEngines) {
    SCOPED_TRACE(e.folder);
    PlanFacts want = facts_of(e);
    Report report = import_engine(e).report;
    std::vector<Finding> all = lint_report(report);
    auto it = std::find_if(all.begin(), all.end(), [](const Finding& f) { return f.rule == "layout-reorders"; });
    ASSERT_NE(it, all.end());
    EXPECT_EQ(it->layers.size(), want.timed_reformatters);
    for (const auto& name : it->layers) {
      const Layer& l = *std::find_if(report.runs[0].layers.begin(), report.runs[0].layers.end(),
                                     [&](const Layer& x) { return x.name == name; });
      EXPECT_GT(l.time_ms, 0) << name;
    }
  }
}

// TREx's join gives a layer the profile has no row for 0 ms; here it is kept in its place in the engine, at 0 ms.
TEST(ImportTrtexecParity, ALayerWithoutAProfileRowIsKeptAtZero) {
  const Engine& e = kEngines[0];
  importers::InputFile graph = test::fixture(part(e, "graph"));
  importers::InputFile profile = test::fixture(part(e, "profile"));
  njson rows = njson::parse(profile.text);
  njson names = njson::parse(graph.text).at("Layers");
  size_t at = 2;  // a convolution after the first one, timed in the file
  while (names.at(at).at("LayerType") != "CaskConvolution") ++at;
  const std::string dropped = names[at].at("Name");
  njson kept = njson::array();
  for (const auto& r : rows)
    if (!r.contains("name") || r.at("name") != dropped) kept.push_back(r);
  ASSERT_EQ(kept.size() + 1, rows.size());
  profile.text = kept.dump();
  importers::Imported in = importers::find_importer("trtexec").read({graph, profile}, {});
  ASSERT_EQ(in.measurement.kernels.size(), names.size());
  EXPECT_EQ(in.measurement.kernels[at].name, dropped);  // in its place in the engine
  EXPECT_FALSE(in.measurement.kernels[at].median_ms.has_value());
  EXPECT_EQ(in.measurement.kernels[at + 1].name, names[at + 1].at("Name"));
  AssemblyContext ctx;
  ctx.rules = in.rules;
  ProfileRun run = assemble_run(RunKey{}, in.measurement, ctx);
  EXPECT_EQ(run.layers[at].time_ms, 0);
  ASSERT_EQ(in.measurement.warnings.size(), 1u);
  EXPECT_EQ(in.measurement.warnings[0].rfind("1 layer(s) of the layer info have no row in the profile", 0), 0u)
      << in.measurement.warnings[0];
}

}  // namespace
}  // namespace rooflens
