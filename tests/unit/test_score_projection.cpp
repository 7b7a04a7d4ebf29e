// Projected scores (whatif/score_projection.h): the arithmetic on a tiny case checked by hand, a figure that cannot
// be projected, the calibration error, and a real zoo model's analysis projected onto this machine's own roofs
// and a datasheet device — labelled projected, finite, efficiency 1 by assumption.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "analysis/analyze.h"
#include "core/errors.h"
#include "hw/datasheets.h"
#include "hw/roof_source.h"
#include "reporters/score_summary.h"
#include "support/ort_suite.h"
#include "support/score_builder.h"
#include "whatif/score_projection.h"
#include "whatif/score_projection_efficiency.h"
#include "zoo/registry.h"
#include "zoo/save.h"
#include "score/projection_workloads.h"
#include "score/suite.h"
#include <nlohmann/json.hpp>

using namespace rooflens;

namespace {

// One thread, no caches: every working set is held against DRAM.
HardwareInfo roofs(double fp32_gflops, double int8_gflops, double dram_gbps) {
  HardwareInfo h;
  h.compute.push_back({"fp32_fma", "avx2", "fp32", 1, fp32_gflops});
  if (int8_gflops > 0) h.compute.push_back({"int8_vnni", "avx512_vnni", "int8", 1, int8_gflops});
  h.memory.push_back({"DRAM", "read", 1, dram_gbps, 1ull << 30});
  return h;
}

ProjectionFigure figure(const std::string& metric, const std::string& category, const std::string& unit,
                        std::vector<ProjectedWork> nodes, double reference_ms, double units = 1) {
  ProjectionFigure f;
  f.metric = metric;
  f.category = category;
  f.unit = unit;
  f.nodes = std::move(nodes);
  f.reference_time_ms = reference_ms;
  f.units_per_pass = units;
  return f;
}

ProjectionSetup setup(const HardwareInfo& reference) {
  ProjectionSetup s;
  s.categories = {"fp32 latency", "int8 throughput"};
  s.reference_roofs = reference;
  s.machine = rooflens::testing::score_result("cpu", 1, {}).machine;
  s.created_at = "2026-03-01T00:00:00.000000Z";
  return s;
}

}  // namespace

// Reference roofs: fp32 50 GFLOP/s, int8 100, DRAM 10 GB/s; target: fp32 100, int8 400, DRAM 20.
//   latency:    conv 1e9 flops/1e6 bytes -> ref 20 ms (compute), target 10 ms; copy 1e8 bytes -> ref 10, target 5
//               T_ref 30, T_target 15 -> time 60 × 15/30 = 30 ms, score 2000, roof ratio 2, efficiency 1
//   throughput: int8 matmul 8e9 ops/2e6 bytes a pass of 2 samples -> per sample ref 40 ms, target 10 ms
//               time 80 × 10/40 = 20 ms -> 50 samples/s, score 4000, roof ratio 4
//   categories 2000 and 4000; overall sqrt(2000 × 4000) = 2828.43
TEST(ScoreProjection, ATinySuiteGivesTheHandComputedScores) {
  std::vector<ProjectionWorkload> w(2);
  w[0].id = "net-fp32";
  w[0].figures.push_back(figure("latency", "fp32 latency", "ms", {{1e9, 1e6, "fp32"}, {0, 1e8, "fp32"}}, 60));
  w[1].id = "net-int8";
  w[1].figures.push_back(figure("throughput", "int8 throughput", "samples/s", {{8e9, 2e6, "int8"}}, 80, 2));
  ProjectionTarget t{roofs(100, 400, 20), "Test Device", "datasheet"};
  ScoreResult r = project_score(w, setup(roofs(50, 100, 10)), t);
  EXPECT_EQ(r.kind, "projected");
  EXPECT_EQ(r.device, "Test Device");
  EXPECT_EQ(r.machine.roofs, "datasheet");
  const ScoreFigure& lat = r.workloads[0].figures[0];
  EXPECT_NEAR(lat.time_ms, 30, 1e-9);
  EXPECT_NEAR(lat.value, 30, 1e-9);
  EXPECT_NEAR(lat.score, 2000, 1e-6);
  EXPECT_NEAR(lat.roof_ratio, 2, 1e-12);
  EXPECT_NEAR(lat.efficiency, 1, 1e-12);
  EXPECT_NEAR(lat.reference_roof_time_ms, 30, 1e-9);
  EXPECT_NEAR(lat.roof.time_ms, 15, 1e-9);
  EXPECT_EQ(lat.roof.bound, "compute");
  const ScoreFigure& thr = r.workloads[1].figures[0];
  EXPECT_NEAR(thr.time_ms, 20, 1e-9);
  EXPECT_NEAR(thr.value, 50, 1e-9) << "a rate: samples per second";
  EXPECT_NEAR(thr.score, 4000, 1e-6);
  EXPECT_NEAR(thr.roof.flops, 4e9, 1) << "per sample";
  ASSERT_EQ(r.categories.size(), 2u);
  EXPECT_NEAR(r.categories[0].score, 2000, 1e-6);
  EXPECT_NEAR(r.categories[1].score, 4000, 1e-6);
  EXPECT_NEAR(r.overall.score, std::sqrt(2000.0 * 4000.0), 1e-6);
  EXPECT_NEAR(r.overall.roof_ratio * r.overall.efficiency, r.overall.score / 1000, 1e-9);
  EXPECT_FALSE(r.overall.incomplete);
  EXPECT_EQ(r.overall.ci.high, 0) << "a projection has no repetitions, so no interval";
  EXPECT_NE(r.overall.explanation.find("PROJECTED"), std::string::npos);
  // The record is a valid score result: it round-trips through the reader the database uses.
  EXPECT_EQ(score_to_json(score_from_json(score_to_json(r))), score_to_json(r));
}

// int8 work on roofs without an int8 peak is held against fp32 (as whatif does); a figure with no reference time
// is not scored, its workload failed and the overall incomplete.
TEST(ScoreProjection, MissingReferenceMakesTheOverallIncomplete) {
  std::vector<ProjectionWorkload> w(2);
  w[0].id = "a";
  w[0].figures.push_back(figure("latency", "fp32 latency", "ms", {{1e9, 0, "fp32"}}, 10));
  w[1].id = "b";
  w[1].figures.push_back(figure("throughput", "int8 throughput", "samples/s", {{1e9, 0, "int8"}}, 0));
  ScoreResult r = project_score(w, setup(roofs(50, 0, 10)), {roofs(100, 0, 20), "dev", "datasheet"});
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::failed);
  EXPECT_NE(r.workloads[1].reason.find("no reference time"), std::string::npos);
  EXPECT_EQ(r.categories[1].score, 0);
  EXPECT_TRUE(r.overall.incomplete);
  EXPECT_NEAR(r.overall.score, 2000, 1e-6);
  w[0].figures[0].reference_time_ms = 0;
  EXPECT_THROW(project_score(w, setup(roofs(50, 0, 10)), {roofs(100, 0, 20), "dev", "datasheet"}), UserError);
}

// The overall row compares the geometric means over the categories both sides scored: a projection that includes
// int8 is never held against a measurement without it (the measured overall below, 1000, covers other categories).
TEST(ScoreProjection, CalibrationIsProjectedOverMeasuredWithinOneSuiteAndMode) {
  ScoreResult measured = rooflens::testing::score_result("cpu", 1000, {{"fp32 latency", 800}, {"int8 throughput", 1250}});
  ScoreResult projected = rooflens::testing::score_result("cpu", 1100, {{"fp32 latency", 1000}, {"int8 throughput", 1250}});
  projected.kind = "projected";
  auto rows = calibration_error(projected, measured);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "fp32 latency");
  EXPECT_NEAR(rows[0].error, 0.25, 1e-12);
  EXPECT_NEAR(rows[1].error, 0, 1e-12);
  EXPECT_EQ(rows[2].name, "overall");
  EXPECT_NEAR(rows[2].error, std::sqrt(1000.0 * 1250) / std::sqrt(800.0 * 1250) - 1, 1e-12);
  measured.categories[1].score = 0;  // int8 INVALID on the measured machine
  rows = calibration_error(projected, measured);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].name, "overall (1 of 2 categories)");
  EXPECT_NEAR(rows[1].projected, 1000, 1e-9);
  EXPECT_NEAR(rows[1].measured, 800, 1e-9);
  projected.quick = true;
  EXPECT_THROW(calibration_error(projected, measured), UserError) << "quick and full are never compared";
  EXPECT_THROW(calibration_error(measured, measured), UserError);
}

// A real model: the zoo's mobilenet_v2 (32 px, seeded) analysed, projected onto this machine's own roofs (cached
// or measured, as score --project this takes them) against a datasheet device as the reference, and the other way
// round. Both are projected, finite and positive, efficiency 1, and the two scores are reciprocal (× 1e6).
TEST(ScoreProjection, ARealModelOnThisMachinesRoofsIsProjectedAndFinite) {
  auto dir = rooflens::testing::fresh_test_dir("rooflens-score-projection");
  zoo::ZooOptions o;
  o.image = 32;
  zoo::BuiltModel m = zoo::make_model(zoo::find_model("mobilenet_v2"), o);
  const auto path = dir / "m.onnx";
  zoo::save_model(m.model, path, false);
  Report analysis = analyze_model_file(path.string());
  std::vector<ProjectionWorkload> w(1);
  w[0].id = "mobilenet_v2-fp32";
  w[0].figures.push_back(figure("latency", "fp32 latency", "ms", projected_work(analysis.model.analysis, "fp32"), 5));
  w[0].figures[0].threads = 2;
  ASSERT_GT(w[0].figures[0].nodes.size(), 50u);
  ProjectionTarget here =
      projection_target("this", [] { return hw::obtain_roofs({}); });
  EXPECT_EQ(here.roofs_source, "measured");
  EXPECT_NE(here.device.find("this machine"), std::string::npos);
  HardwareInfo sheet = hw::datasheet_hardware(hw::find_datasheet_device(hw::datasheet_devices().front().id));
  ProjectionSetup s = setup(sheet);
  s.categories = {"fp32 latency"};
  ScoreResult r = project_score(w, s, here);
  EXPECT_EQ(r.kind, "projected");
  EXPECT_TRUE(std::isfinite(r.overall.score) && r.overall.score > 0) << r.overall.score;
  EXPECT_NEAR(r.overall.efficiency, 1, 1e-9);
  EXPECT_NEAR(r.overall.roof_ratio * 1000, r.overall.score, 1e-6 * r.overall.score);
  s.reference_roofs = here.roofs;
  ScoreResult back = project_score(w, s, {sheet, "sheet", "datasheet"});
  EXPECT_NEAR(r.overall.score * back.overall.score, 1e6, 1e-3) << "swapping reference and target inverts the ratio";
  EXPECT_NE(projected_score_summary(r, {}).find("PROJECTED score of this machine"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// The score suite as projection inputs (score/projection_workloads.h): a tiny suite (squeezenet at 64 px in fp32 and
// int8, a decoder, an fp16 workload) with reference times; the served ones and the decoder (its prefill per prompt
// token, a decode step at its cached length) are built, analysed and projected onto a datasheet device, the fp16
// one is unsupported (as in a measured score: reported, no member), so the overall is complete.
TEST(ScoreProjection, TheSuitesWorkloadsAreProjectedFp16SaysSoAndCounts) {
  auto dir = rooflens::testing::fresh_test_dir("rooflens-score-projection-suite");
  nlohmann::json figures = {{"latency", {{"time_ms", 2.0}, {"roof_time_ms", 0.5}}},
                            {"throughput", {{"time_ms", 1.0}, {"roof_time_ms", 0.5}}}};
  nlohmann::json decoder_figures = {{"prefill", {{"time_ms", 0.5}, {"roof_time_ms", 0.1}}},
                                    {"decode", {{"time_ms", 2.0}, {"roof_time_ms", 0.1}}}};
  auto entry = [&](std::string id, std::string kind, std::string model, std::string precision) {
    return nlohmann::json{{"id", id}, {"kind", kind}, {"model", model}, {"precision", precision}, {"quick", true},
                          {"seed", 3}, {"image", 64}, {"seq", 0}, {"decoder", nlohmann::json::object()}, {"prompt", 4},
                          {"gen", 4},
                          {"reference", {{"figures", kind == "served" ? figures : decoder_figures},
                                         {"outputs", nlohmann::json::array()}, {"tokens", nlohmann::json::array()}}}};
  };
  nlohmann::json dec = entry("tinygpt-fp32", "decoder", "gpt2", "fp32");
  dec["decoder"] = {{"layers", 1}, {"hidden", 64}, {"heads", 2}, {"ffn", 128}, {"vocab", 512}};
  dec["image"] = 0;
  nlohmann::json mode = {{"repetitions", 2}, {"offline_seconds", 0.2}, {"offline_min_queries", 4}, {"generate_requests", 2}};
  nlohmann::json suite = {
      {"suite", "v1"}, {"reference_configuration", "test"},
      {"categories", {"fp32 latency", "fp32 throughput", "int8 latency", "int8 throughput", "generative"}},
      {"tolerances", {{"fp32", {{"rtol", 1e-3}, {"atol", 1e-4}, {"percent_mismatch", 0}}},
                      {"int8", {{"rtol", 0.05}, {"atol", 0.05}, {"percent_mismatch", 1}}}}},
      {"full", mode}, {"quick", mode},
      {"workloads", {entry("sq-fp32", "served", "squeezenet1_0", "fp32"), entry("sq-int8", "served", "squeezenet1_0", "int8"),
                     dec, entry("sq-fp16", "served", "squeezenet1_0", "fp16")}}};
  const score::Suite s = score::parse_suite(suite.dump(), "tiny suite");
  auto workloads = score::projection_workloads(s, {}, dir, 2);
  ASSERT_EQ(workloads.size(), 4u);
  EXPECT_GT(workloads[0].figures[0].nodes.size(), 20u);
  EXPECT_EQ(workloads[0].figures[1].category, "fp32 throughput");
  EXPECT_EQ(workloads[2].not_projected, "");
  ASSERT_EQ(workloads[2].figures.size(), 2u);
  EXPECT_EQ(workloads[2].figures[0].metric, "prefill");
  EXPECT_EQ(workloads[2].figures[0].units_per_pass, 4) << "a prefill pass yields the prompt's 4 tokens";
  EXPECT_EQ(workloads[2].figures[1].units_per_pass, 1);
  auto flops = [](const ProjectionFigure& f) {
    double sum = 0;
    for (const auto& n : f.nodes) sum += n.flops;
    return sum;
  };
  EXPECT_GT(flops(workloads[2].figures[0]), 2 * flops(workloads[2].figures[1]))
      << "the prefill pass computes 4 tokens, a decode step one";
  EXPECT_NE(workloads[3].not_projected.find("fp16"), std::string::npos);
  ProjectionSetup setup;
  setup.categories = s.categories;
  setup.reference_roofs = roofs(100, 200, 20);
  setup.created_at = "2026-03-01T00:00:00Z";
  const HardwareInfo sheet = hw::datasheet_hardware(hw::datasheet_devices().front());
  ScoreResult r = project_score(workloads, setup, {sheet, "sheet", "datasheet"});
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::valid);
  EXPECT_EQ(r.workloads[2].status, WorkloadStatus::valid) << r.workloads[2].reason;
  EXPECT_EQ(r.workloads[3].status, WorkloadStatus::unsupported) << "fp16: as a measured score marks it";
  EXPECT_NE(r.workloads[3].reason.find("not projected"), std::string::npos);
  for (size_t c = 0; c < 5; ++c) EXPECT_TRUE(std::isfinite(r.categories[c].score) && r.categories[c].score > 0) << c;
  EXPECT_FALSE(r.overall.incomplete) << "an unsupported workload is no member (a failed one would be)";
  // The int8 workload's Conv work is held against int8 roofs (the QDQ model as the runtime runs it); fp32's never.
  auto int8_nodes = [](const ProjectionWorkload& w) {
    return std::count_if(w.figures[0].nodes.begin(), w.figures[0].nodes.end(),
                         [](const ProjectedWork& n) { return n.dtype == "int8"; });
  };
  EXPECT_EQ(int8_nodes(workloads[0]), 0);
  EXPECT_GT(int8_nodes(workloads[1]), 20);
  std::filesystem::remove_all(dir);
}

namespace {

// A stored measured score of suite v1, full, on a machine of `isa` whose figure `net-fp32` latency had efficiency
// `figure` and whose fp32 latency category had `category`.
EfficiencyEvidence stored(const std::string& machine, const std::vector<std::string>& isa, bool quick, double figure,
                          double category = 0) {
  ScoreResult r = rooflens::testing::score_result(machine, 1000, {{"fp32 latency", 1000}});
  r.quick = quick;
  r.machine.machine.isa = isa;
  r.categories[0].efficiency = category;
  ScoreWorkload w;
  w.id = "net-fp32";
  w.status = WorkloadStatus::valid;
  ScoreFigure f;
  f.metric = "latency";
  f.category = "fp32 latency";
  f.score = figure > 0 ? 1000 : 0;
  f.efficiency = figure;
  w.figures.push_back(f);
  r.workloads.push_back(w);
  return {"id-" + machine, r};
}

const std::vector<std::string> kAvx2{"sse2", "avx", "fma", "avx2"};
const std::vector<std::string> kAvx512Vnni{"sse2", "avx", "fma", "avx2", "avx512f", "avx512_vnni"};

}  // namespace

TEST(ScoreProjectionEfficiency, IsaClassesTellKernelsApart) {
  MachineDesc m;
  m.isa = kAvx2;
  EXPECT_EQ(isa_class_of(m), "avx2");
  m.isa = kAvx512Vnni;
  EXPECT_EQ(isa_class_of(m), "avx512-vnni");
  m.isa = {"sse2", "avx", "avx2", "avx_vnni"};
  EXPECT_EQ(isa_class_of(m), "avx2-vnni");
  m.isa = {"neon"};
  EXPECT_EQ(isa_class_of(m), "other");
}

// Efficiency per figure from stored measured scores of the target's class: each machine's own geometric mean first,
// then across machines (machine a's two scores count once); other classes, projections and the target machine's
// score in the projection's own mode never teach; a figure no score has falls back to its category, then to 1.
TEST(ScoreProjectionEfficiency, LearnedFromStoredScoresOfTheSameClassOnly) {
  std::vector<EfficiencyEvidence> db{stored("a", kAvx2, false, 1.0), stored("a", kAvx2, false, 4.0),
                                     stored("b", kAvx2, false, 2.0),
                                     stored("c", kAvx512Vnni, false, 9.0),  // another class
                                     stored("me", kAvx2, false, 100.0),      // the run a full projection predicts
                                     stored("me", kAvx2, true, 2.0)};       // its quick score: a separate run
  db.push_back(stored("d", kAvx2, false, 50.0));
  db.back().result.kind = "projected";
  EfficiencyTable t(db, {"v1", false, "avx2", "id-me"});
  EXPECT_EQ(t.evidence(), 4u);
  const LearnedEfficiency e = t.of("net-fp32", "latency", "fp32 latency");
  EXPECT_TRUE(e.learned);
  // machines: a = sqrt(1 × 4) = 2, b = 2, me (quick) = 2 -> 2.
  EXPECT_NEAR(e.factor, 2.0, 1e-12);
  EXPECT_NE(e.source.find("3 machines"), std::string::npos) << e.source;

  // No figure efficiency anywhere, a category one: the category's.
  std::vector<EfficiencyEvidence> cats{stored("a", kAvx2, false, 0, 1.5), stored("b", kAvx2, false, 0, 1.5)};
  const LearnedEfficiency c = EfficiencyTable(cats, {"v1", false, "avx2", ""}).of("net-fp32", "latency", "fp32 latency");
  EXPECT_TRUE(c.learned);
  EXPECT_NEAR(c.factor, 1.5, 1e-12);
  EXPECT_NE(c.source.find("category"), std::string::npos) << c.source;

  const EfficiencyTable none(db, {"v1", false, "avx512", "id-me"});
  const LearnedEfficiency n = none.of("net-fp32", "latency", "fp32 latency");
  EXPECT_FALSE(n.learned);
  EXPECT_EQ(n.factor, 1.0);
  EXPECT_NE(none.summary().find("assumed"), std::string::npos) << none.summary();
  EXPECT_FALSE(EfficiencyTable(db, {"v2", false, "avx2", ""}).of("net-fp32", "latency", "fp32 latency").learned)
      << "another suite's scores never teach";
  EXPECT_FALSE(EfficiencyTable(db, {"v1", false, "", ""}).of("net-fp32", "latency", "fp32 latency").learned)
      << "a datasheet device has no class";
}

// The projection applies the learned efficiency: score = 1000 × roof ratio × efficiency, the time accordingly, and
// every figure and aggregate says where its efficiency came from.
TEST(ScoreProjectionEfficiency, AProjectionAppliesWhatItLearned) {
  std::vector<ProjectionWorkload> w(1);
  w[0].id = "net-fp32";
  w[0].figures.push_back(figure("latency", "fp32 latency", "ms", {{1e9, 1e6, "fp32"}, {0, 1e8, "fp32"}}, 60));
  ProjectionSetup s = setup(roofs(50, 100, 10));
  s.categories = {"fp32 latency"};
  ProjectionTarget target{roofs(100, 400, 20), "this machine", "measured"};
  const std::vector<EfficiencyEvidence> db{stored("a", kAvx2, false, 1.25)};
  const EfficiencyTable learned(db, {"v1", false, "avx2", "id-me"});
  ScoreResult r = project_score(w, s, target, &learned);
  const ScoreFigure& f = r.workloads[0].figures[0];
  EXPECT_NEAR(f.roof_ratio, 2, 1e-12) << "as in the hand-computed case above";
  EXPECT_NEAR(f.efficiency, 1.25, 1e-12);
  EXPECT_NEAR(f.score, 2500, 1e-9);
  EXPECT_NEAR(f.time_ms, 24, 1e-9) << "60 ms / (2 × 1.25)";
  EXPECT_NE(f.config.find("efficiency learned"), std::string::npos) << f.config;
  EXPECT_NE(r.overall.explanation.find("learned"), std::string::npos) << r.overall.explanation;
  EXPECT_NEAR(r.overall.roof_ratio * r.overall.efficiency, r.overall.score / 1000, 1e-12);
  const EfficiencyTable nothing({}, {"v1", false, "avx2", "id-me"});
  const ScoreResult assumed = project_score(w, s, target, &nothing);
  EXPECT_NEAR(assumed.overall.score, 2000, 1e-9);
  EXPECT_NE(assumed.overall.explanation.find("assumed"), std::string::npos) << assumed.overall.explanation;
  EXPECT_NE(projected_score_summary(r, {}).find("learned"), std::string::npos) << projected_score_summary(r, {});
}
