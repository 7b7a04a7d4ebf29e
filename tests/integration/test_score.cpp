// `rooflens score` through the binary on the real ONNX Runtime runner, with a test-only suite of tiny workloads
// (SqueezeNet at 64×64 in fp32 and int8 — 7-bit weights, so it validates with and without VNNI alike —, a one-layer
// GPT-2-shaped decoder, an fp16 entry) so a whole run takes
// seconds: references regenerated with graph optimizations disabled, constants taken from a measured result, the
// validity gate (a perturbed reference output makes its workload INVALID with its max error, the overall score
// incomplete, exit 1), a crashing runtime (test hook) failing one workload while the rest goes on, `--from`
// giving the same scores from a stored result, bad input as one line. Nothing here depends on how fast the
// machine is: scores are checked for presence and consistency, never for size.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/ort_cli_suite.h"

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;  // keys in the order written: the suite file's
using namespace rooflens::testing;

namespace {

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

ojson tiny_suite() {
  auto entry = [](std::string id, std::string kind, std::string model, std::string precision) {
    return ojson{{"id", id}, {"kind", kind}, {"model", model}, {"precision", precision}, {"quick", true}, {"seed", 3},
                {"image", 0}, {"seq", 0}, {"decoder", ojson::object()}, {"prompt", 0}, {"gen", 0},
                {"reference", {{"figures", ojson::object()}, {"outputs", ojson::array()}, {"tokens", ojson::array()}}}};
  };
  ojson sq32 = entry("squeeze-fp32", "served", "squeezenet1_0", "fp32");
  sq32["image"] = 64;
  ojson sq8 = entry("squeeze-int8", "served", "squeezenet1_0", "int8");
  sq8["image"] = 64;
  sq8["reduce_range"] = true;
  ojson dec = entry("tinygpt-fp32", "decoder", "gpt2", "fp32");
  dec["decoder"] = {{"layers", 1}, {"hidden", 64}, {"heads", 2}, {"ffn", 128}, {"vocab", 512}};
  dec["prompt"] = 4;
  dec["gen"] = 4;
  ojson fp16 = entry("squeeze-fp16", "served", "squeezenet1_0", "fp16");
  ojson mode = {{"repetitions", 2}, {"offline_seconds", 0.2}, {"offline_min_queries", 4}, {"generate_requests", 2},
               {"latency_queries", 64}};
  return {{"suite", "v2"},
          {"reference_configuration", "test"},
          {"categories", {"fp32 latency", "fp32 throughput", "int8 latency", "int8 throughput", "generative"}},
          {"tolerances", {{"fp32", {{"rtol", 1e-3}, {"atol", 1e-4}, {"percent_mismatch", 0}}},
                          {"int8", {{"rtol", 0.05}, {"atol", 0.05}, {"percent_mismatch", 1}}}}},
          {"full", mode},
          {"quick", mode},
          {"workloads", {sq32, sq8, dec, fp16}}};
}

class ScoreTest : public OrtCliSuite<ScoreTest> {
 public:
  static constexpr const char* kDir = "rooflens-score";
  static void prepare() {
    write_file(path("base.json"), tiny_suite().dump(1));
  }
 protected:
  static ojson load(const std::string& file) { return ojson::parse(slurp(path(file))); }
  static const ojson& workload(const ojson& r, const std::string& id) {
    for (const auto& w : r["workloads"])
      if (w["id"] == id) return w;
    throw std::runtime_error("no workload " + id);
  }
};

TEST_F(ScoreTest, ReferencesConstantsGateFaultsAndReproducibility) {
  // References, then a measured result, then constants from it: a suite as the reference configuration makes one.
  CliResult refs = cli("score --suite " + path("base.json") + " --write-references " + path("refs.json") + " -q");
  ASSERT_EQ(refs.rc, 0) << refs.err;
  const ojson r = load("refs.json");
  EXPECT_FALSE(r["workloads"][0]["reference"]["outputs"].empty());
  EXPECT_EQ(r["workloads"][2]["reference"]["tokens"][0].size(), 5u);  // the prefill's token + 4 steps
  const std::string db = shell_quote(path("scores.db"));
  CliResult first = cli("score --suite " + path("refs.json") + " --no-roofs -q -o " + path("first.json") + " --db " + db);
  ASSERT_EQ(first.rc, 1) << first.err;  // no constants yet: nothing scores, so incomplete
  // A finished suite is stored with the machine's identity: history --scores lists it.
  CliResult listed = cli("history --scores --json --db " + db);
  ASSERT_EQ(listed.rc, 0) << listed.err;
  EXPECT_NE(listed.out.find("\"quick\""), std::string::npos) << listed.out;
  ojson m = load("first.json");
  for (const char* id : {"squeeze-fp32", "squeeze-int8", "tinygpt-fp32"}) {
    EXPECT_EQ(workload(m, id)["status"], "valid") << id << ": " << workload(m, id)["reason"];
    for (const auto& f : workload(m, id)["figures"]) EXPECT_EQ(f["repetitions"].size(), 2u) << id;
  }
  EXPECT_EQ(workload(m, "squeeze-fp16")["status"], "unsupported");
  // The reference configuration's roofs go into the suite with the constants (here a datasheet device's, given with
  // --roofs as a user would): what `score --project` scales from.
  CliResult sheet = cli("hw --device l4 -o " + path("l4.json"));
  ASSERT_EQ(sheet.rc, 0) << sheet.err;
  CliResult consts = cli("score --suite " + path("refs.json") + " --write-references " + path("suite.json") +
                         " --reference-result " + path("first.json") + " --roofs " + path("l4.json") + " -q");
  ASSERT_EQ(consts.rc, 0) << consts.err;
  EXPECT_EQ(load("suite.json")["reference_roofs"]["machine"], load("l4.json")["hardware"]["machine"]);

  // The constants carry the harness the result was measured with, per mode (the tiny suite's full and quick are alike,
  // so the quick run's result below is scored against constants of its own harness too).
  const ojson written = load("suite.json");
  EXPECT_EQ(written["constants"]["full"]["harness"], m["harness"]);
  EXPECT_FALSE(written["constants"]["full"]["provisional"].get<bool>());
  EXPECT_FALSE(written["constants"].contains("quick")) << "no quick result was given";

  // Scored again with the constants from its own raw figures: every figure 1000 (its own reference), complete.
  CliResult again = cli("score --from " + path("first.json") + " --suite " + path("suite.json") + " --json");
  ASSERT_EQ(again.rc, 0) << again.err;
  const ojson s = ojson::parse(again.out);
  EXPECT_NEAR(s["overall"]["score"].get<double>(), 1000, 1e-6);
  EXPECT_FALSE(s["overall"]["incomplete"].get<bool>());
  EXPECT_EQ(s["categories"].size(), 5u);
  for (const auto& w : s["warnings"])
    EXPECT_EQ(w.get<std::string>().find("constants:"), std::string::npos) << "same harness, final constants: " << w;

  // The gate and a fault: squeeze-int8's reference outputs moved, tinygpt's first token changed, squeeze-fp32's runtime
  // crashes while validating (test hook); each is reported, nothing stops the run, the overall is incomplete.
  ojson bad = load("suite.json");
  for (auto& w : bad["workloads"]) {
    if (w["id"] == "squeeze-int8")  // every element: int8's tolerance lets 1% of them differ
      for (auto& v : w["reference"]["outputs"][0]["values"]) v = v.get<double>() + 10;
    if (w["id"] == "tinygpt-fp32") w["reference"]["tokens"][0][0] = (w["reference"]["tokens"][0][0].get<int64_t>() + 1) % 512;
    if (w["id"] == "squeeze-fp32") w["test_hook"] = "segv";
  }
  write_file(path("bad.json"), bad.dump(1));
  CliResult gate = run_cli_env("ROOFLENS_TEST_HOOKS=1 ", "score --suite " + path("bad.json") + " --no-roofs -q --no-db -o " +
                                   path("bad-result.json"), dir_->string());
  EXPECT_EQ(gate.rc, 1) << gate.err;
  const ojson g = load("bad-result.json");
  EXPECT_EQ(workload(g, "squeeze-int8")["status"], "INVALID");
  EXPECT_GE(workload(g, "squeeze-int8")["max_abs_error"].get<double>(), 9.0);
  for (const auto& f : workload(g, "squeeze-int8")["figures"]) EXPECT_TRUE(f["repetitions"].empty());
  EXPECT_EQ(g["categories"][2]["name"], "int8 latency");
  EXPECT_EQ(g["categories"][2]["members"], 1);  // the INVALID workload still counts: the category is incomplete
  EXPECT_EQ(g["categories"][2]["valid_members"], 0);
  EXPECT_EQ(workload(g, "tinygpt-fp32")["status"], "INVALID");
  EXPECT_NE(workload(g, "tinygpt-fp32")["reason"].get<std::string>().find("greedy token 0"), std::string::npos);
  EXPECT_EQ(workload(g, "squeeze-fp32")["status"], "failed");
  EXPECT_FALSE(workload(g, "squeeze-fp32")["reason"].get<std::string>().empty());
  EXPECT_TRUE(g["overall"]["incomplete"].get<bool>());
  EXPECT_EQ(g["overall"]["score"].get<double>(), 0);  // no category has a valid figure left
  EXPECT_NE(gate.out.find("INVALID"), std::string::npos);
}

// `score --project DEVICE`: the suite analysed (nothing runs) and projected from its reference roofs. Onto the
// reference's own roofs every figure is its reference (1000); onto a faster device higher, labelled PROJECTED; a
// suite without reference roofs, or an unknown device, is one line.
TEST_F(ScoreTest, ProjectionFromTheSuitesReferenceRoofs) {
  ojson suite = tiny_suite();
  ojson figures = {{"latency", {{"time_ms", 2.0}, {"roof_time_ms", 0}}}, {"throughput", {{"time_ms", 1.0}, {"roof_time_ms", 0}}}};
  ojson steps = {{"prefill", {{"time_ms", 0.5}, {"roof_time_ms", 0}}}, {"decode", {{"time_ms", 2.0}, {"roof_time_ms", 0}}}};
  for (auto& w : suite["workloads"]) w["reference"]["figures"] = w["kind"] == "decoder" ? steps : figures;
  write_file(path("noroofs.json"), suite.dump(1));
  CliResult none = cli("score --suite " + path("noroofs.json") + " --project l4 -q --no-db");
  EXPECT_EQ(none.rc, 1);
  EXPECT_EQ(none.err_lines(), 1) << none.err;
  EXPECT_NE(none.err.find("reference roofs"), std::string::npos) << none.err;

  ASSERT_EQ(cli("hw --device l4 -o " + path("l4-ref.json")).rc, 0);
  suite["reference_roofs"] = load("l4-ref.json")["hardware"];
  write_file(path("withroofs.json"), suite.dump(1));
  CliResult self = cli("score --suite " + path("withroofs.json") + " --project l4 -q --no-db --json");
  ASSERT_EQ(self.rc, 0) << self.err;
  const ojson p = ojson::parse(self.out);
  EXPECT_EQ(p["kind"], "projected");
  EXPECT_NEAR(p["overall"]["score"].get<double>(), 1000, 1e-6) << "the reference's own roofs project to 1000";
  EXPECT_FALSE(p["overall"]["incomplete"].get<bool>()) << "fp16 is unsupported, every other workload projected";
  EXPECT_EQ(workload(p, "squeeze-fp16")["status"], "unsupported");
  EXPECT_EQ(workload(p, "tinygpt-fp32")["status"], "valid");

  CliResult faster = cli("score --suite " + path("withroofs.json") + " --project h100-sxm5-80gb -q --no-db -o " +
                         path("h100.json"));
  ASSERT_EQ(faster.rc, 0) << faster.err;
  EXPECT_NE(faster.out.find("PROJECTED score of"), std::string::npos) << faster.out;
  const ojson h = load("h100.json");
  EXPECT_GT(h["overall"]["score"].get<double>(), 1000) << "an H100's roofs are above an L4's";
  EXPECT_NEAR(h["overall"]["score"].get<double>() / 1000, h["overall"]["roof_ratio"].get<double>(), 1e-9);

  suite["reference_roofs"]["compute"] = "fast";
  write_file(path("badroofs.json"), suite.dump(1));
  CliResult bad = cli("score --suite " + path("badroofs.json") + " --project l4 -q --no-db");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(bad.err_lines(), 1) << bad.err;
  EXPECT_NE(bad.err.find("suite.reference_roofs"), std::string::npos) << bad.err;

  CliResult unknown = cli("score --suite " + path("withroofs.json") + " --project nosuch -q --no-db");
  EXPECT_EQ(unknown.rc, 1);
  EXPECT_EQ(unknown.err_lines(), 1) << unknown.err;
  EXPECT_NE(unknown.err.find("nosuch"), std::string::npos) << unknown.err;
}

TEST_F(ScoreTest, BadInputIsOneLine) {
  write_file(path("broken.json"), "{\"suite\": \"v2\"}");
  CliResult r = cli("score --suite " + path("broken.json") + " --quick -q --no-db");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err_lines(), 1) << r.err;
  EXPECT_NE(r.err.find("reference_configuration"), std::string::npos) << r.err;
  write_file(path("notscore.json"), "{\"schema\": \"rooflens.report/2\"}");
  r = cli("score --from " + path("notscore.json"));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err_lines(), 1) << r.err;
  r = cli("score --workloads nope --quick -q --no-db");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
}

}  // namespace
