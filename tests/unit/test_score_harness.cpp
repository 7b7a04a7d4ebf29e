// The harness fingerprint (score/harness.h) and the suite's per-mode constants: the built-in suite's constants were
// measured with the harness this code computes (this test fails when the harness changes without new constants),
// the runner protocol the harness names is the runner's, a difference is named key by key and carried into the
// result as a warning, constants come only from a result of this harness, and the suite file reads v1's layout (one
// set of constants for both modes) and v2's (per mode, int8 in 7-bit weights).
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "score/run_suite.h"
#include "score/harness.h"
#include "score/suite.h"

using namespace rooflens;
using namespace rooflens::score;
using ojson = nlohmann::ordered_json;  // keys in the order written: the suite file's

namespace {

ojson entry(const std::string& id, const std::string& precision, bool quick) {
  return ojson{{"id", id}, {"kind", "served"}, {"model", "squeezenet1_0"}, {"precision", precision}, {"quick", quick},
              {"seed", 1}, {"image", 64}, {"seq", 0}, {"decoder", ojson::object()}, {"prompt", 0}, {"gen", 0},
              {"reference", {{"figures", ojson::object()}, {"outputs", ojson::array()}, {"tokens", ojson::array()}}}};
}

ojson suite_json() {
  ojson mode = {{"repetitions", 3}, {"offline_seconds", 0.5}, {"offline_min_queries", 4}, {"generate_requests", 2},
               {"latency_queries", 64}};
  return {{"suite", "v2"},
          {"reference_configuration", "test"},
          {"categories", {"fp32 latency", "fp32 throughput", "int8 latency", "int8 throughput"}},
          {"tolerances", {{"fp32", {{"rtol", 1e-3}, {"atol", 1e-4}, {"percent_mismatch", 0}}},
                          {"int8", {{"rtol", 0.05}, {"atol", 0.05}, {"percent_mismatch", 1}}}}},
          {"full", mode},
          {"quick", mode},
          {"workloads", {entry("a-fp32", "fp32", true), entry("b-int8", "int8", false)}}};
}

// A measured result of `suite`'s workloads in one mode, every figure at `ms` per unit, with `harness`.
ScoreResult measured(const Suite& suite, bool quick, const HarnessFingerprint& harness, double ms) {
  ScoreResult r;
  r.quick = quick;
  r.suite = suite.version;
  r.harness = harness;
  for (const auto& d : suite.workloads) {
    if (quick && !d.quick) continue;
    ScoreWorkload w;
    w.id = d.id;
    w.status = WorkloadStatus::valid;
    for (const auto& m : metrics_of(d)) {
      ScoreFigure f = figure_of(d, m, quick);
      f.repetitions = {m == "latency" ? ms : 1000 / ms, m == "latency" ? ms : 1000 / ms};
      f.roof.time_ms = ms / 4;
      w.figures.push_back(f);
    }
    r.workloads.push_back(w);
  }
  return r;
}

std::filesystem::path source_dir() { return std::filesystem::path(ROOFLENS_FIXTURES_DIR).parent_path().parent_path(); }

}  // namespace

// The constants of each mode must mean what this code measures. When this fails, the harness changed (a duration, a
// query count, the runner protocol, the Release build's flags, ...): the constants measure something else now. Make
// new ones on the reference configuration (docs/score.md, "Reference constants") — and a new suite version if the
// figures' meaning changed.
TEST(ScoreHarness, TheBuiltinSuitesConstantsWereMeasuredWithThisHarness) {
  const Suite& s = builtin_suite();
  for (bool quick : {false, true}) {
    const std::string mode = mode_name(quick);
    ASSERT_TRUE(s.constants.count(mode)) << "suite " << s.version << " has no " << mode << " constants";
    const HarnessFingerprint code = harness_fingerprint(s.mode(quick), release_build());
    EXPECT_EQ(fingerprint_difference(s.constants.at(mode).harness, code), "")
        << "suite " << s.version << "'s " << mode << " constants were measured with another harness";
    for (const auto& w : s.workloads) {
      if (w.precision == "fp16" || (quick && !w.quick)) continue;
      for (const auto& m : metrics_of(w)) {
        const FigureReference* ref = reference_of(w, quick, m);
        ASSERT_NE(ref, nullptr) << w.id << " has no " << mode << " constant for " << m;
        EXPECT_GT(ref->time_ms, 0) << w.id << " " << m;
        EXPECT_GT(ref->roof_time_ms, 0) << w.id << " " << m << ": the decomposition needs the reference's roof time";
      }
    }
  }
  EXPECT_TRUE(s.reference_roofs.has_value()) << "score --project scales from the reference roofs";
}

TEST(ScoreHarness, TheRunnerProtocolIsTheRunnersOwn) {
  std::ifstream in(source_dir() / "runners" / "ort" / "run.mjs");
  ASSERT_TRUE(in) << "runners/ort/run.mjs not found under " << source_dir();
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  const std::string js = text.str();
  ASSERT_TRUE(std::regex_search(js, m, std::regex(R"(const PROTOCOL_VERSION = (\d+);)")));
  EXPECT_EQ(std::stoi(m[1].str()), kRunnerProtocol) << "the runner speaks another protocol than the harness names";
}

TEST(ScoreHarness, AChangedHarnessIsNamedAndWarned) {
  Suite s = parse_suite(suite_json().dump(), "test suite");
  const HarnessFingerprint here = harness_fingerprint(s.full, release_build());
  EXPECT_NE(here.at("latency").find("64 queries"), std::string::npos) << here.at("latency");
  EXPECT_EQ(here.at("runner_protocol"), std::to_string(kRunnerProtocol));
  ModeSettings longer = s.full;
  longer.latency_queries = 256;
  const std::string d = fingerprint_difference(here, harness_fingerprint(longer, release_build()));
  EXPECT_NE(d.find("latency:"), std::string::npos) << d;
  EXPECT_EQ(d.find("throughput"), std::string::npos) << "only what changed is named: " << d;
  EXPECT_NE(fingerprint_difference(here, harness_fingerprint(s.full, "Debug")).find("build: Release"), std::string::npos);

  auto warning = harness_warning(s, false, here);
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("records no harness"), std::string::npos) << *warning;
  s.constants["full"] = {"test machine", here, false};
  EXPECT_FALSE(harness_warning(s, false, here).has_value()) << "the same harness, final constants: nothing to say";
  warning = harness_warning(s, false, harness_fingerprint(longer, release_build()));
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("latency:"), std::string::npos) << *warning;
  s.constants["full"].provisional = true;
  warning = harness_warning(s, false, here);
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("provisional"), std::string::npos) << *warning;
  EXPECT_TRUE(harness_warning(s, true, here).has_value()) << "no quick constants";
}

TEST(ScoreHarness, ConstantsComeOnlyFromAResultOfThisHarness) {
  const Suite s = parse_suite(suite_json().dump(), "test suite");
  const HarnessFingerprint full = harness_fingerprint(s.full, release_build());
  ConstantsSource source;
  source.configuration = "the reference machine";
  source.provisional = true;
  source.results = {measured(s, false, full, 20), measured(s, true, harness_fingerprint(s.quick, "San"), 10)};
  const Suite out = with_constants(s, source);
  EXPECT_EQ(out.constants.at("full").harness, full);
  EXPECT_EQ(out.constants.at("quick").harness.at("build"), "San") << "the build is recorded as the result states it";
  EXPECT_TRUE(out.constants.at("full").provisional);
  EXPECT_EQ(out.constants.at("quick").configuration, "the reference machine");
  ASSERT_NE(reference_of(out.workloads[0], false, "latency"), nullptr);
  EXPECT_NEAR(reference_of(out.workloads[0], false, "latency")->time_ms, 20, 1e-9);
  EXPECT_NEAR(reference_of(out.workloads[0], false, "throughput")->time_ms, 20, 1e-9) << "1000 / (50 per second)";
  EXPECT_NEAR(reference_of(out.workloads[0], false, "latency")->roof_time_ms, 5, 1e-9);
  EXPECT_NEAR(reference_of(out.workloads[0], true, "latency")->time_ms, 10, 1e-9) << "quick's own constants";
  EXPECT_EQ(reference_of(out.workloads[1], true, "latency"), nullptr) << "b-int8 is not a quick workload";
  // Written and read back: the per-mode layout survives the file.
  const Suite again = parse_suite(suite_to_json(out), "round trip");
  EXPECT_EQ(suite_to_json(again), suite_to_json(out));

  ModeSettings other = s.full;
  other.offline_seconds = 4;
  source.results = {measured(s, false, harness_fingerprint(other, release_build()), 20)};
  try {
    with_constants(s, source);
    ADD_FAILURE() << "constants taken from a result of another harness";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("throughput:"), std::string::npos) << e.what();
  }
  source.results = {measured(s, false, full, 20), measured(s, false, full, 30)};
  EXPECT_THROW(with_constants(s, source), UserError) << "two results of one mode";
  source.results = {measured(s, false, full, 20)};
  source.results[0].workloads[1].status = WorkloadStatus::invalid;
  EXPECT_THROW(with_constants(s, source), UserError) << "an INVALID workload has no constant to give";
}

TEST(ScoreSuite, V1LayoutServesBothModesV2KeepsThemApart) {
  ojson v1 = suite_json();
  v1["suite"] = "v1";
  v1["full"].erase("latency_queries");
  v1["workloads"][0]["reference"]["figures"] = {{"latency", {{"time_ms", 4.0}, {"roof_time_ms", 1.0}}}};
  const Suite old = parse_suite(v1.dump(), "v1 suite");
  EXPECT_EQ(old.full.latency_queries, 64) << "v1 measured the fewest queries early stopping allows";
  ASSERT_NE(reference_of(old.workloads[0], true, "latency"), nullptr) << "v1 scored quick against full's constants";
  EXPECT_EQ(reference_of(old.workloads[0], true, "latency")->time_ms, 4.0);
  EXPECT_FALSE(old.workloads[1].reduce_range) << "v1's int8 is the zoo's full-range quantization";

  ojson bad = suite_json();
  bad["workloads"][0]["reduce_range"] = true;
  EXPECT_THROW(parse_suite(bad.dump(), "x.json"), UserError) << "only int8 is quantized";
  bad = suite_json();
  bad["full"]["latency_queries"] = 10;
  EXPECT_THROW(parse_suite(bad.dump(), "x.json"), UserError) << "early stopping needs 64";
  bad = suite_json();
  bad["workloads"][0]["reference"]["figures"] = {{"fast", {{"latency", {{"time_ms", 1.0}, {"roof_time_ms", 0}}}}},
                                                 {"full", ojson::object()}};
  EXPECT_THROW(parse_suite(bad.dump(), "x.json"), UserError) << "not a mode";

  for (const auto& w : builtin_suite().workloads) {
    if (w.precision == "int8") {
      EXPECT_TRUE(w.reduce_range) << w.id << ": v2's int8 runs alike with and without VNNI";
    }
  }
}
