// `rooflens bench` end to end on the real ONNX Runtime with Debian's libonnx-testdata: known passes and known
// failures of ORT 1.30 on ONNX's node tests, crash and hang isolation through the test-only hooks, a killed run
// that leaves valid CSVs and a --resume that does only the rest, benchmark mode with two configurations.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/ort_suite.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens::testing;

namespace {

const std::string kNode = "/usr/share/libonnx-testdata/data/node";

// RFC 4180 records (quoted fields may hold commas, quotes and newlines). Throws on a malformed file.
std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::string text = slurp(path);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    any = true;
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') quoted = false;
      else cell += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(cell), cell.clear();
    } else if (c == '\n') {
      row.push_back(cell), cell.clear();
      rows.push_back(row), row.clear();
      any = false;
    } else {
      cell += c;
    }
  }
  if (quoted || any) throw std::runtime_error(path + ": ends inside a record");
  return rows;
}

// Every CSV of a results folder is whole: each record has its header's column count.
void expect_valid_csvs(const fs::path& dir) {
  for (const char* f : {"status.csv", "failures.csv", "latency.csv", "metrics.csv", "system.csv"}) {
    std::vector<std::vector<std::string>> rows;
    ASSERT_NO_THROW(rows = read_csv((dir / f).string())) << f;
    ASSERT_FALSE(rows.empty()) << f << " has no header";
    for (const auto& r : rows) EXPECT_EQ(r.size(), rows[0].size()) << f;
  }
}

std::vector<std::string> journal_lines(const fs::path& dir) {
  std::ifstream f(dir / "entries.jsonl");
  std::vector<std::string> out;
  for (std::string line; std::getline(f, line);) out.push_back(line);
  return out;
}

std::map<std::string, json> entries_by_model(const json& results) {
  std::map<std::string, json> m;
  for (const auto& e : results["entries"]) m[e["model"].get<std::string>()] = e;
  return m;
}

class BenchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fresh_test_dir("rooflens-bench-test"));
    ok_ = ort_runner_available() && fs::exists(kNode);
  }
  static void TearDownTestSuite() {
    if (!getenv("KEEP")) fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    if (!ok_) GTEST_SKIP() << "needs onnxruntime-node (make deps) and libonnx-testdata";
  }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }
  static json read_json(const std::string& p) { return json::parse(slurp(p)); }

  static inline fs::path* dir_ = nullptr;
  static inline bool ok_ = false;
};

// 191 node tests (test_a*, test_b*, test_c*) plus one that feeds an optional: every one ends pass, fail or skip with
// a reason, and what ORT 1.30 does with them is known.
TEST_F(BenchTest, NodeTestsEndPassFailOrSkipAsOnnxRuntimeDoesThem) {
  const std::string out = path("node-subset");
  auto r = run_cli("bench " + kNode + " --mode validate -q --filter '^test_(a|b|c)|^test_identity_opt$' -o " + out,
                   *dir_);
  EXPECT_EQ(r.rc, 1) << r.err;  // some models fail
  json res = read_json(out + "/results.json");
  EXPECT_FALSE(res["partial"].get<bool>());
  auto by = entries_by_model(res);
  ASSERT_EQ(by.size(), 192u);
  size_t pass = 0, fail = 0, skip = 0;
  for (const auto& [name, e] : by) {
    std::string s = e["status"];
    ASSERT_TRUE(s == "pass" || s == "fail" || s == "skip") << name << ": " << s << " " << e["message"];
    if (s == "pass") ++pass;
    if (s == "fail") ++fail;
    if (s == "skip") ++skip;
    if (s != "pass") {
      EXPECT_FALSE(e["message"].get<std::string>().empty()) << name;
      EXPECT_FALSE(e["error_type"].get<std::string>().empty()) << name;
    }
  }
  // Known passes: simple elementwise ops, every convolution, reductions, casts between float types.
  for (const char* m : {"test_abs", "test_add", "test_add_bcast", "test_argmax_default_axis_example", "test_acosh",
                        "test_averagepool_2d_pads", "test_basic_conv_with_padding", "test_batchnorm_example",
                        "test_cast_FLOAT_to_DOUBLE", "test_cast_FLOAT16_to_FLOAT", "test_ceil", "test_clip_example",
                        "test_concat_2d_axis_0"})
    EXPECT_EQ(by.at(m)["status"], "pass") << m << ": " << by.at(m)["message"];
  size_t convs = 0;
  for (const auto& [name, e] : by)
    if (name.rfind("test_conv", 0) == 0) {
      ++convs;
      EXPECT_EQ(e["status"], "pass") << name << ": " << e["message"];
      EXPECT_EQ(e["validation"]["reference"], "test_data_set_0") << name;
    }
  EXPECT_GE(convs, 15u);

  // Known failures, with ORT's own words: a kernel ORT lacks, a type it lacks, a training op it does not register.
  struct Known { const char* model; const char* stage; const char* type; const char* text; };
  for (const Known& k : {Known{"test_bitshift_left_uint16", "load", "ort:no-kernel",
                               "Could not find an implementation for BitShift(11)"},
                         Known{"test_cast_BFLOAT16_to_FLOAT", "load", "ort:unsupported-type", "Unsupported data type: 16"},
                         Known{"test_adagrad", "load", "ort:unregistered-op", "Adagrad(-1) is not a registered function/op"},
                         Known{"test_bernoulli_seed", "validate", "mismatch", "output 'y' (data set 0):"},
                         Known{"test_cast_FLOAT_to_STRING", "validate", "mismatch", "expected 0.6048455, got 0.60484552"}}) {
    const json& e = by.at(k.model);
    EXPECT_EQ(e["status"], "fail") << k.model;
    EXPECT_EQ(e["stage"], k.stage) << k.model;
    EXPECT_EQ(e["error_type"], k.type) << k.model;
    EXPECT_NE(e["message"].get<std::string>().find(k.text), std::string::npos) << k.model << ": " << e["message"];
  }
  // A mismatch lists its first differing elements: index, expected, got.
  const json& fm = by.at("test_cast_FLOAT_to_STRING")["validation"]["first_mismatches"];
  ASSERT_FALSE(fm.empty());
  EXPECT_EQ(fm[0]["index"], 1);
  EXPECT_EQ(fm[0]["expected"], "0.6048455");
  EXPECT_EQ(fm[0]["got"], "0.60484552");
  // An optional input cannot be fed: a skip with the reason.
  EXPECT_EQ(by.at("test_identity_opt")["status"], "skip");
  EXPECT_NE(by.at("test_identity_opt")["message"].get<std::string>().find("optional"), std::string::npos);

  // The CSVs agree with results.json; the table prints the pass rate.
  expect_valid_csvs(out);
  EXPECT_EQ(read_csv(out + "/status.csv").size(), 193u);
  EXPECT_EQ(read_csv(out + "/failures.csv").size(), fail + 1);
  char rate[64];
  std::snprintf(rate, sizeof rate, "pass rate %.1f%% (%zu of %zu that ran; %zu skipped)",
                100.0 * static_cast<double>(pass) / static_cast<double>(pass + fail), pass, pass + fail, skip);
  EXPECT_NE(r.out.find(rate), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ort:no-kernel"), std::string::npos) << r.out;  // failures grouped by error type
}

// A runner killed by SIGSEGV or SIGKILL and one hanging past --timeout are recorded; the models after them pass.
TEST_F(BenchTest, CrashesAndHangsAreRecordedAndTheRunGoesOn) {
  const std::string list = path("hooks.json");
  std::ofstream(list) << R"({"models": [
    {"name": "abs", "path": ")" << kNode << R"(/test_abs/model.onnx"},
    {"name": "segv", "path": ")" << kNode << R"(/test_add/model.onnx", "test_hook": "segv"},
    {"name": "add", "path": ")" << kNode << R"(/test_add/model.onnx"},
    {"name": "sigkill", "path": ")" << kNode << R"(/test_add/model.onnx", "test_hook": "sigkill"},
    {"name": "hang", "path": ")" << kNode << R"(/test_relu/model.onnx", "test_hook": "hang"},
    {"name": "relu", "path": ")" << kNode << R"(/test_relu/model.onnx"}
  ]})";
  const std::string out = path("hooks");
  ::setenv("ROOFLENS_TEST_HOOKS", "1", 1);
  auto r = run_cli("bench " + list + " --mode validate -j 1 --timeout 2 -q -o " + out, *dir_);
  ::unsetenv("ROOFLENS_TEST_HOOKS");
  EXPECT_EQ(r.rc, 1) << r.err;
  auto by = entries_by_model(read_json(out + "/results.json"));
  ASSERT_EQ(by.size(), 6u);
  for (const char* m : {"abs", "add", "relu"}) EXPECT_EQ(by.at(m)["status"], "pass") << m << by.at(m)["message"];
  EXPECT_EQ(by.at("segv")["status"], "crash");
  EXPECT_NE(by.at("segv")["message"].get<std::string>().find("killed by SIGSEGV"), std::string::npos);
  EXPECT_EQ(by.at("sigkill")["status"], "crash");
  EXPECT_NE(by.at("sigkill")["message"].get<std::string>().find("killed by SIGKILL"), std::string::npos);
  // The crash record carries the runner's last words: the model it had loaded.
  EXPECT_NE(by.at("sigkill")["stderr_tail"].get<std::string>().find("loaded " + std::string(kNode) + "/test_add/model.onnx"),
            std::string::npos) << by.at("sigkill")["stderr_tail"];
  const json& hang = by.at("hang");
  EXPECT_EQ(hang["status"], "timeout");
  EXPECT_EQ(hang["stage"], "run");
  EXPECT_GE(hang["wall_s"].get<double>(), 2.0);
  EXPECT_LT(hang["wall_s"].get<double>(), 15.0);
  expect_valid_csvs(out);

  // Without ROOFLENS_TEST_HOOKS=1 the field is a no-op, and rooflens says so.
  auto plain = run_cli("bench " + list + " --mode validate -j 1 -o " + path("hooks-off"), *dir_);
  EXPECT_EQ(plain.rc, 0) << plain.err;
  EXPECT_NE(plain.err.find("ROOFLENS_TEST_HOOKS=1"), std::string::npos) << plain.err;
}

// SIGKILL of rooflens itself mid-run: every CSV stays whole, and --resume runs exactly the entries not yet journaled.
TEST_F(BenchTest, AKilledRunKeepsValidCsvsAndResumeDoesOnlyTheRest) {
  const std::string out = path("killed");
  const std::vector<std::string> args{"bench", kNode, "--mode", "validate", "-j", "1", "-q",
                                      "--filter", "^test_[a-e]", "-o", out};
  pid_t pid = spawn_rooflens(args, path("killed.out"), path("killed.err"));
  ASSERT_GT(pid, 0);
  bool started = wait_for([&] { return fs::exists(out + "/entries.jsonl") && journal_lines(out).size() >= 30; },
                          std::chrono::seconds(120));
  ::kill(pid, SIGKILL);
  EXPECT_EQ(wait_exit(pid), 128 + SIGKILL);
  ASSERT_TRUE(started) << slurp(path("killed.err"));
  const std::vector<std::string> before = journal_lines(out);
  expect_valid_csvs(out);
  // One status row per journaled entry (+ the header), except that the kill may land between an entry's journal line
  // and its CSV rows: the journal is written first, being what --resume trusts, and resume rebuilds the CSVs from it
  // (checked below). Seen once in a fresh clone's suite: 33 rows for 33 journal lines.
  const size_t rows = read_csv(out + "/status.csv").size();
  EXPECT_TRUE(rows == before.size() + 1 || rows == before.size()) << rows << " rows, " << before.size() << " entries";
  EXPECT_TRUE(read_json(out + "/results.json")["partial"].get<bool>());

  auto all = run_cli("bench " + kNode + " --mode validate -q --filter '^test_[a-e]' -o " + path("reference"), *dir_);
  const size_t total = entries_by_model(read_json(path("reference") + "/results.json")).size();
  ASSERT_GT(total, before.size()) << "the run finished before it was killed";

  auto resumed = run_cli("bench " + kNode + " --mode validate -j 1 --filter '^test_[a-e]' --resume -o " + out, *dir_);
  EXPECT_EQ(resumed.rc, 1) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming: " + std::to_string(before.size()) + " entries finished earlier, " +
                             std::to_string(total - before.size()) + " to go"),
            std::string::npos)
      << resumed.err;
  const std::vector<std::string> after = journal_lines(out);
  ASSERT_EQ(after.size(), total);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), after.begin()));  // earlier entries untouched, not redone
  std::set<std::string> models;
  for (const auto& row : read_csv(out + "/status.csv")) EXPECT_TRUE(models.insert(row[0]).second) << row[0];
  EXPECT_EQ(models.size(), total + 1);  // + header
  EXPECT_FALSE(read_json(out + "/results.json")["partial"].get<bool>());

  // A resume with other options is refused in one line; without --resume the folder is protected.
  auto other = run_cli("bench " + kNode + " --mode validate --filter '^test_[a-e]' --rtol 0.1 --resume -o " + out, *dir_);
  EXPECT_EQ(other.rc, 2);
  EXPECT_EQ(other.err_lines(), 1) << other.err;
  EXPECT_NE(other.err.find("rtol"), std::string::npos) << other.err;
  auto again = run_cli("bench " + kNode + " --mode validate --filter '^test_[a-e]' -o " + out, *dir_);
  EXPECT_EQ(again.rc, 2);
  EXPECT_NE(again.err.find("--resume"), std::string::npos) << again.err;
}

// --repeat 3: three rounds over the zoo (round-robin: every model once, then again), one journal line per round;
// a run killed in round 2 keeps every finished round, and --resume does exactly the rounds still to run.
TEST_F(BenchTest, RepeatRoundsOverTheZooAndResumeDoesTheRemainingRounds) {
  const std::string out = path("rounds");
  const std::string filter = "^test_(abs|relu|neg|sigmoid)$";
  const std::string flags = " --mode benchmark --repeat 3 --duration 0 --iterations 3 --warmup-ms 0 --no-metrics -q "
                            "--filter '" + filter + "' -o " + out;
  pid_t pid = spawn_rooflens({"bench", kNode, "--mode", "benchmark", "--repeat", "3", "--duration", "0",
                              "--iterations", "3", "--warmup-ms", "0", "--no-metrics", "-q", "--filter", filter, "-o", out},
                             path("rounds.out"), path("rounds.err"));
  ASSERT_GT(pid, 0);
  bool in_round_2 = wait_for([&] { return fs::exists(out + "/entries.jsonl") && journal_lines(out).size() >= 5; },
                             std::chrono::seconds(120));
  ::kill(pid, SIGKILL);
  wait_exit(pid);
  ASSERT_TRUE(in_round_2) << slurp(path("rounds.err"));
  const std::vector<std::string> before = journal_lines(out);
  ASSERT_LT(before.size(), 12u) << "the run finished before it was killed";
  // Round-robin: the four models' first rounds, then their second rounds in the same order.
  std::vector<std::string> order;
  for (size_t i = 0; i < before.size(); ++i) {
    json line = json::parse(before[i]);
    EXPECT_EQ(line.value("round", 1), static_cast<int>(i / 4) + 1) << before[i];
    if (i < 4) order.push_back(line["model"]);
    else EXPECT_EQ(line["model"], order[i % 4]);
    EXPECT_EQ(line["repetitions"].size(), 1u);  // each line holds its own round's samples
  }
  expect_valid_csvs(out);
  EXPECT_EQ(read_csv(out + "/status.csv").size(), 1u);  // nothing is final before its third round
  EXPECT_TRUE(read_json(out + "/results.json")["partial"].get<bool>());

  auto resumed = run_cli("bench " + kNode + flags + " --resume", *dir_);
  EXPECT_EQ(resumed.rc, 0) << resumed.err;
  auto again = run_cli("bench " + kNode + " --mode validate --repeat 3 -o " + path("never"), *dir_);
  EXPECT_EQ(again.rc, 2);
  EXPECT_EQ(again.err_lines(), 1) << again.err;
  EXPECT_NE(again.err.find("--repeat 3"), std::string::npos) << again.err;

  const std::vector<std::string> after = journal_lines(out);
  ASSERT_EQ(after.size(), 12u);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), after.begin()));  // finished rounds untouched, not redone
  json res = read_json(out + "/results.json");
  EXPECT_FALSE(res["partial"].get<bool>());
  EXPECT_EQ(res["options"]["repeat"], 3);
  ASSERT_EQ(res["entries"].size(), 4u);
  for (const auto& e : res["entries"]) {
    EXPECT_EQ(e["status"], "pass") << e["model"];
    ASSERT_EQ(e["repetitions"].size(), 3u) << e["model"];
    size_t sum = 0;
    for (const auto& n : e["repetitions"]) sum += n.get<size_t>();
    EXPECT_EQ(sum, e["latencies_ms"].size());
    EXPECT_EQ(e["latency_ms"]["n"].get<size_t>(), sum);
  }
  EXPECT_EQ(read_csv(out + "/status.csv").size(), 5u);
  EXPECT_EQ(read_csv(out + "/latency.csv").size(), 5u);

  // The results compare run by run.
  auto cmp = run_cli("compare " + out + " " + out + " --json", *dir_);
  ASSERT_EQ(cmp.rc, 0) << cmp.err;
  const json compared = json::parse(cmp.out);  // kept alive: the loop walks into it
  for (const auto& it : compared["items"]) {
    EXPECT_EQ(it["latency"]["unit"], "runs") << it;
    EXPECT_EQ(it["verdict"], "within noise") << it;  // the very same runs on both sides
  }
}

// Ctrl-C (SIGTERM) stops at once: the entries in flight are dropped, not recorded as crashes; results.json is partial.
TEST_F(BenchTest, SigtermStopsCleanlyWithPartialResults) {
  const std::string out = path("terminated");
  pid_t pid = spawn_rooflens({"bench", kNode, "--mode", "validate", "-q", "--filter", "^test_[a-m]", "-o", out},
                             path("term.out"), path("term.err"));
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(wait_for([&] { return fs::exists(out + "/entries.jsonl") && journal_lines(out).size() >= 20; },
                       std::chrono::seconds(120)));
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit(pid), 1);
  json res = read_json(out + "/results.json");
  EXPECT_TRUE(res["partial"].get<bool>());
  for (const auto& e : res["entries"]) EXPECT_NE(e["status"], "crash") << e["model"];
  EXPECT_EQ(res["entries"].size(), journal_lines(out).size());
  EXPECT_NE(slurp(path("term.out")).find("INTERRUPTED"), std::string::npos);
  EXPECT_NE(slurp(path("term.err")).find("interrupted"), std::string::npos);
  expect_valid_csvs(out);
}

// Benchmark and validate with two configurations: latency and metrics per model × configuration, and a model
// without test data validated against the first configuration's outputs.
TEST_F(BenchTest, BothModesWithTwoConfigurations) {
  fs::copy_file(kNode + "/test_gemm_default_matrix_bias/model.onnx", path("gemm_copy.onnx"),
                fs::copy_options::overwrite_existing);  // the same model without its test data
  const std::string out = path("both");
  auto r = run_cli("bench " + kNode + " " + path("gemm_copy.onnx") +
                       " --filter '^(test_abs|test_conv_with_strides_padding|test_gemm_default_matrix_bias|gemm_copy)$'"
                       " -B onnxruntime:opt=all -B onnxruntime:opt=disabled --mode both -q --duration 0.05"
                       " --warmup-ms 0 --iterations 20 --profile-iterations 3 -o " + out,
                   *dir_);
  EXPECT_EQ(r.rc, 0) << r.err << r.out;
  json res = read_json(out + "/results.json");
  ASSERT_EQ(res["entries"].size(), 8u);
  ASSERT_EQ(res["configs"].size(), 2u);
  EXPECT_EQ(res["configs"][1]["label"], "onnxruntime:opt=disabled");
  EXPECT_EQ(res["configs"][1]["backend"]["options"]["graphOptimizationLevel"], "disabled");
  for (const auto& e : res["entries"]) {
    std::string what = e["model"].get<std::string>() + " [" + e["config"].get<std::string>() + "]";
    EXPECT_EQ(e["status"], "pass") << what << e["message"];
    const json& l = e["latency_ms"];
    EXPECT_GE(l["n"].get<int64_t>(), 20) << what;
    EXPECT_EQ(e["latencies_ms"].size(), l["n"].get<size_t>()) << what;
    EXPECT_LE(l["median"].get<double>(), l["p90"].get<double>()) << what;
    EXPECT_LE(l["p90"].get<double>(), l["p99"].get<double>()) << what;
    EXPECT_GT(e["throughput_per_s"].get<double>(), 0) << what;
    EXPECT_GT(e["peak_rss_bytes"].get<uint64_t>(), 10u << 20) << what;
    ASSERT_TRUE(e.contains("metrics")) << what;
    EXPECT_GE(e["metrics"]["kernels"].get<int64_t>(), 1) << what;
    EXPECT_EQ(e["metrics"]["providers"][0]["provider"], "CPUExecutionProvider") << what;
    EXPECT_DOUBLE_EQ(e["metrics"]["providers"][0]["time_share"].get<double>(), 1.0) << what;
  }
  // Without test data the second configuration is checked against the first one's outputs.
  for (const auto& e : res["entries"]) {
    if (e["model"] != "gemm_copy") continue;
    if (e["config"] == "onnxruntime:opt=all") {
      EXPECT_FALSE(e.contains("validation"));
      EXPECT_NE(e["message"].get<std::string>().find("reference"), std::string::npos);
    } else {
      EXPECT_EQ(e["validation"]["reference"], "config:onnxruntime:opt=all");
      EXPECT_EQ(e["validation"]["outputs"][0]["passed"], true);
    }
  }
  auto latency = read_csv(out + "/latency.csv");
  EXPECT_EQ(latency.size(), 9u);
  auto metrics = read_csv(out + "/metrics.csv");
  EXPECT_EQ(metrics.size(), 9u);  // one provider each
  EXPECT_NE(r.out.find("median latency, profiling off"), std::string::npos) << r.out;
}

}  // namespace
