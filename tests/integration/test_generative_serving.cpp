// The generative scheduler serving a real decoder on ONNX Runtime (a small zoo llama with a KV cache), through the
// ORT runner's step messages (runners/ort/serve_steps.mjs):
//  - a padded continuous batch (sequences of different lengths, left-padded and masked) gives each request exactly the
//    greedy tokens it gets when served alone, and so does chunked prefill: the padding, the masks, the positions and
//    the cache rebuilds change no token;
//  - the KV bytes the runner says it copied are what rebuilding the batch's rows costs, counted from the steps;
//  - a runner killed in the middle of a run fails the running requests, abandons the waiting ones and keeps the
//    finished ones.
#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "analysis/model_summary.h"
#include "backends/generation.h"
#include "backends/registry/registry.h"
#include "capacity/generative/batcher.h"
#include "capacity/generative/metrics.h"
#include "capacity/sut/decoder_steps.h"
#include "generate/decoder_io.h"
#include "model/declared_io.h"
#include "model/loader.h"
#include "support/cli_runner.h"
#include "support/ort_suite.h"

namespace fs = std::filesystem;
using namespace rooflens;
using namespace rooflens::testing;
using namespace rooflens::capacity::generative;
namespace generative = rooflens::capacity::generative;

namespace {

class GenerativeServingTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fresh_test_dir("rooflens-generative-serving-test"));
    model_ = (*dir_ / "llama-kv.onnx").string();
    zoo::ZooOptions o;
    o.kv_cache = true;
    o.decoder = {2, 64, 4, 2, 128, 256};  // layers, hidden, heads, kv heads, ffn, vocab
    save_zoo_model("llama", o, model_);
  }
  static void TearDownTestSuite() {
    if (!getenv("KEEP")) fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    if (!ort_runner_available()) GTEST_SKIP() << "onnxruntime-node is not installed: run `make deps`";
    backend_ = make_backend(BackendSpec{});
    io_ = detect_decoder_io(read_declared_io(model_), model_);
  }

  std::unique_ptr<ServedDecoder> serve(std::chrono::milliseconds step_timeout = std::chrono::minutes(2)) {
    DecoderServingConfig c;
    c.step_timeout = step_timeout;
    c.model = model_;
    c.io = io_;
    c.threads = 1;
    c.seed = 11;
    c.next_token = NextToken::greedy;
    c.keep_tokens = true;
    return backend_->generation()->serve(c);
  }

  static inline fs::path* dir_ = nullptr;
  static inline std::string model_;
  std::unique_ptr<Backend> backend_;
  DecoderIo io_;
};

// Records every step it runs for another executor.
struct Recording final : StepExecutor {
  explicit Recording(StepExecutor& inner) : inner(inner) {}
  StepResult run(const DecoderStep& s) override {
    steps.push_back(s);
    return inner.run(s);
  }
  void idle_until(int64_t ns) override { inner.idle_until(ns); }
  const capacity::Clock& clock() const override { return inner.clock(); }
  StepExecutor& inner;
  std::vector<DecoderStep> steps;
};

const std::vector<RequestShape> kShapes = {{5, 6}, {9, 3}, {3, 8}, {12, 4}, {7, 5}};

LoadPlan offline_load() {
  LoadPlan l;
  l.kind = LoadKind::offline;  // all at once: which sequences share a step depends on the lengths alone
  l.shapes = kShapes;
  return l;
}

TEST_F(GenerativeServingTest, APaddedContinuousBatchGivesEachRequestTheTokensItGetsAlone) {
  std::map<std::string, std::map<int64_t, std::vector<int64_t>>> tokens;
  std::map<std::string, ServingRecords> records;
  std::map<std::string, std::vector<DecoderStep>> steps;
  for (const auto& [name, max_batch, chunked] : std::vector<std::tuple<std::string, int64_t, bool>>{
           {"alone", 1, false}, {"batched", 3, false}, {"chunked", 3, true}, {"static", 3, false}}) {
    auto decoder = serve();
    capacity::ServedDecoderExecutor live(*decoder);
    Recording rec(live);
    BatcherSettings s;
    s.max_batch = max_batch;
    if (name == "static") s.batching = Batching::static_batches;  // finished rows ride along as padding
    if (chunked) {
      s.prefill = PrefillMode::chunked;
      s.max_batched_tokens = 4;  // prompts of 5-12 tokens go in chunks beside the decodes
    }
    records[name] = generative::serve(offline_load(), s, rec);
    tokens[name] = decoder->finish();
    steps[name] = rec.steps;
  }
  for (const auto& [name, r] : records) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(r.fault.empty()) << r.fault;
    ASSERT_EQ(r.requests.size(), kShapes.size());
    for (const auto& q : r.requests) {
      EXPECT_EQ(q.status, RequestStatus::ok) << q.error;
      ASSERT_EQ(static_cast<int64_t>(q.token_ns.size()), q.shape.output_tokens);
      for (size_t i = 1; i < q.token_ns.size(); ++i) EXPECT_GT(q.token_ns[i], q.token_ns[i - 1]);
      EXPECT_GT(request_metrics(q).ttft_ms, 0);
      EXPECT_EQ(static_cast<int64_t>(tokens[name][q.id].size()), q.shape.output_tokens);
    }
  }
  EXPECT_EQ(records["batched"].max_batch_seen, 3);
  EXPECT_EQ(tokens["batched"], tokens["alone"]) << "padding changed a token";
  EXPECT_EQ(tokens["chunked"], tokens["alone"]) << "chunking changed a token";
  EXPECT_EQ(tokens["static"], tokens["alone"]) << "a static batch's padding rows changed a token";

  // The copies: every decode step whose batch changed rebuilt it, copying each row's context, keys and values, in
  // every layer; a step with the same batch copied nothing.
  const int64_t per_token = 2 * static_cast<int64_t>(io_.cache.size()) * io_.kv_heads * io_.head_dim * 4;
  for (const auto& name : {"alone", "batched", "chunked", "static"}) {
    int64_t expected = 0, rebuilds = 0;
    for (const auto& s : steps[name]) {
      if (s.decode_rows() == 0 || (s.joined.empty() && s.left.empty())) continue;
      ++rebuilds;
      for (const auto& row : s.rows)
        if (!row.prefill) expected += row.context * per_token;
    }
    EXPECT_GT(rebuilds, 0) << name;
    EXPECT_EQ(records[name].kv_copy_bytes, expected) << name;
  }
}

TEST_F(GenerativeServingTest, ARunnerKilledMidRunFailsTheRunningRequestsAndKeepsTheFinished) {
  auto decoder = serve();
  capacity::ServedDecoderExecutor live(*decoder);
  struct KillAt final : StepExecutor {
    KillAt(StepExecutor& inner, Backend& b, int64_t at) : inner(inner), backend(b), at(at) {}
    StepResult run(const DecoderStep& s) override {
      if (s.index == at) backend.abort();  // as Ctrl-C or the OOM killer would end it
      return inner.run(s);
    }
    void idle_until(int64_t ns) override { inner.idle_until(ns); }
    const capacity::Clock& clock() const override { return inner.clock(); }
    StepExecutor& inner;
    Backend& backend;
    int64_t at;
  } killing(live, *backend_, 6);
  BatcherSettings s;
  s.max_batch = 1;  // one request at a time: request 0 (5 in, 6 out) takes steps 0-5, request 1's prefill is step 6
  const ServingRecords r = generative::serve(offline_load(), s, killing);
  ASSERT_FALSE(r.fault.empty());
  ASSERT_EQ(r.requests.size(), kShapes.size());
  EXPECT_EQ(r.requests[0].status, RequestStatus::ok);
  EXPECT_EQ(r.requests[1].status, RequestStatus::failed);
  EXPECT_NE(r.requests[1].error.find("step 6 failed"), std::string::npos) << r.requests[1].error;
  for (size_t i = 2; i < r.requests.size(); ++i) EXPECT_EQ(r.requests[i].status, RequestStatus::abandoned);
  const ServingSummary sum = summarize_serving(r, Slo{});
  const ServingVerdict v = judge_serving(r, sum, Slo{}, 1);
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.reasons[0].find("the run stopped"), std::string::npos) << v.reasons[0];
}

// The runtime process serving the steps: this process's child running node (the only one while a test serves).
pid_t serving_runner_pid() {
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == ::getpid() && slurp((e.path() / "cmdline").string()).find("node") != std::string::npos)
      return static_cast<pid_t>(std::stol(name));
  }
  return -1;
}

// A step that never returns (the runtime process stopped mid-step, as a deadlocked or swapped-out runtime would
// look): the step's timeout ends it, the request in the step fails with the reason, those not started are
// abandoned, the one finished stands, and the verdict is INVALID saying the run stopped.
TEST_F(GenerativeServingTest, AHungStepTimesOutAndEveryRequestIsAccountedFor) {
  auto decoder = serve(std::chrono::milliseconds(1500));
  capacity::ServedDecoderExecutor live(*decoder);
  struct StopAt final : StepExecutor {
    StopAt(StepExecutor& inner, pid_t runner, int64_t at) : inner(inner), runner(runner), at(at) {}
    StepResult run(const DecoderStep& s) override {
      if (s.index == at) ::kill(runner, SIGSTOP);
      return inner.run(s);
    }
    void idle_until(int64_t ns) override { inner.idle_until(ns); }
    const capacity::Clock& clock() const override { return inner.clock(); }
    StepExecutor& inner;
    pid_t runner;
    int64_t at;
  } stopping(live, serving_runner_pid(), 6);
  ASSERT_GT(stopping.runner, 0) << "no runner process found";
  BatcherSettings s;
  s.max_batch = 1;  // request 0 takes steps 0-5; request 1's prefill is step 6, the one that hangs
  const auto t0 = std::chrono::steady_clock::now();
  const ServingRecords r = generative::serve(offline_load(), s, stopping);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(r.fault.empty());
  EXPECT_LT(waited, 60) << "the timeout did not end the step";
  ASSERT_EQ(r.requests.size(), kShapes.size());
  EXPECT_EQ(r.requests[0].status, RequestStatus::ok);
  EXPECT_EQ(r.requests[1].status, RequestStatus::failed);
  EXPECT_NE(r.requests[1].error.find("step 6 failed"), std::string::npos) << r.requests[1].error;
  EXPECT_NE(r.fault.find("did not answer 'serve_step' within 1500 ms"), std::string::npos) << r.fault;
  for (size_t i = 2; i < r.requests.size(); ++i) EXPECT_EQ(r.requests[i].status, RequestStatus::abandoned);
  const ServingVerdict v = judge_serving(r, summarize_serving(r, Slo{}), Slo{}, 1);
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.reasons[0].find("the run stopped"), std::string::npos) << v.reasons[0];
}

// Ctrl-C during a decoder's run: exit 1, the report written and marked partial, INVALID, and every request accounted
// for — in the summary and in the records file, one line each (those not finished follow when the run stops).
TEST_F(GenerativeServingTest, CtrlCKeepsTheRecordsAndAccountsForEveryRequest) {
  const std::string out = (*dir_ / "ctrlc.json").string(), lines = (*dir_ / "ctrlc.jsonl").string();
  const pid_t pid = spawn_rooflens({"capacity", model_, "--scenario", "server", "--qps", "4", "--requests", "400",
                                    "--input-tokens", "8", "--output-tokens", "6", "--threads", "1", "--no-predict",
                                    "--no-roofs", "--no-db", "-q", "-o", out, "--queries", lines},
                                   (*dir_ / "ctrlc.out").string(), (*dir_ / "ctrlc.err").string());
  auto finished = [&] {
    std::ifstream in(lines);
    return std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
  };
  ASSERT_TRUE(wait_for([&] { return finished() >= 5; }, std::chrono::seconds(120))) << slurp((*dir_ / "ctrlc.err").string());
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 1) << slurp((*dir_ / "ctrlc.err").string());
  const nlohmann::json j = nlohmann::json::parse(slurp(out));
  EXPECT_TRUE(j["partial"].get<bool>());
  const nlohmann::json& s = j["serving"];
  EXPECT_TRUE(s["interrupted"].get<bool>());
  EXPECT_FALSE(s["verdict"]["valid"].get<bool>());
  EXPECT_EQ(s["settings"]["requests"], 400) << "what the load held";
  // The summary counts the requests that arrived before Ctrl-C; those yet to come were never sent.
  const nlohmann::json& m = s["summary"];
  const int64_t arrived = m["requests"].get<int64_t>();
  EXPECT_GE(arrived, 5);
  EXPECT_LT(arrived, 400);
  EXPECT_EQ(m["completed"].get<int64_t>() + m["failed"].get<int64_t>() + m["rejected"].get<int64_t>() +
                m["abandoned"].get<int64_t>(), arrived) << m.dump();
  EXPECT_EQ(finished(), arrived) << "one line per request that arrived";
  EXPECT_NE(s["verdict"]["reasons"].dump().find("of 400 had arrived"), std::string::npos) << s["verdict"].dump();
}

// `rooflens capacity` on the decoder: the report's serving section says what ran and what came of it, and the
// summary leads with the verdict. Offline, all requests at once, a limit every request meets: the verdict is INVALID
// only because 12 requests cannot show a p99 (early stopping needs 459), which it says.
TEST_F(GenerativeServingTest, TheCapacityCommandServesADecoderAndReportsItsServingSection) {
  const std::string report = (*dir_ / "serving.json").string(), lines = (*dir_ / "requests.jsonl").string();
  const std::string cache = "XDG_CACHE_HOME=" + (*dir_ / "cache").string() + " ";
  const CliResult r = run_cli_env(cache, "capacity " + model_ + " --scenario offline --requests 12 --input-tokens "
                                  "uniform:4-12 --output-tokens 6 --max-batch 4 --threads 1 --slo ttft=60s,tpot=10s -q --no-roofs "
                                  "-o " + report + " --queries " + lines,
                                  dir_->string());
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_EQ(r.out.rfind("INVALID  p99 TTFT <= 60000 ms, TPOT <= 10000 ms", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("early stopping needs 459"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(report));
  const nlohmann::json& s = j.at("serving");
  EXPECT_EQ(s["settings"]["scenario"], "offline");
  EXPECT_EQ(s["settings"]["lengths"], "uniform:4-12 in / 6 out");
  EXPECT_EQ(s["settings"]["max_batch"], 4);
  EXPECT_EQ(s["settings"]["threads"], 1);
  // The runtime process warmed up before the load (at least two windows of two requests and one more), untimed:
  // a fresh process's first requests would otherwise set a short run's p99 TTFT (docs/capacity.md).
  EXPECT_GE(s["settings"].value("warmup_requests", 0), 5) << s["settings"].dump();
  EXPECT_NE(r.out.find("warm-up: "), std::string::npos) << r.out;
  EXPECT_EQ(s["summary"]["completed"], 12);
  EXPECT_EQ(s["summary"]["good"], 12);
  EXPECT_EQ(s["summary"]["ttft_ms"]["n"], 12);
  EXPECT_EQ(s["summary"]["itl_ms"]["n"], 12 * 5);
  EXPECT_EQ(s["max_batch_seen"], 4);
  EXPECT_GT(s["summary"]["output_tokens_per_s"].get<double>(), 0);
  EXPECT_NEAR(s["summary"]["output_tokens_per_s"].get<double>(), 72 / s["summary"]["duration_s"].get<double>(), 1e-6);
  EXPECT_FALSE(s["verdict"]["valid"].get<bool>());
  // The prediction, made before the run from calls timed in runners of their own, then cached: a second command with
  // the same lengths reads the calibration back instead of timing calls again; other lengths are timed afresh (a
  // step's time is fitted where the load runs).
  ASSERT_TRUE(s.contains("predicted")) << s.dump();
  EXPECT_FALSE(s["predicted"]["cached"].get<bool>());
  EXPECT_FALSE(s["predicted"]["calibrated_at"].get<std::string>().empty());
  EXPECT_EQ(s["predicted"]["summary"]["completed"], 12);
  EXPECT_GT(s["predicted"]["summary"]["output_tokens_per_s"].get<double>(), 0);
  EXPECT_GT(s["predicted"]["prefill_call_ms"].get<double>() + s["predicted"]["prefill_token_ms"].get<double>(), 0);
  EXPECT_NE(r.out.find("predicted before the run"), std::string::npos) << r.out;
  const std::string again = (*dir_ / "again.json").string();
  ASSERT_EQ(run_cli_env(cache, "capacity " + model_ + " --scenario offline --requests 12 --input-tokens uniform:4-12 "
                        "--output-tokens 6 --max-batch 4 --threads 1 -q --no-roofs -o " + again, dir_->string()).rc,
            0);  // no objectives: every request done is VALID
  const nlohmann::json j2 = nlohmann::json::parse(slurp(again));
  EXPECT_TRUE(j2["serving"]["predicted"]["cached"].get<bool>());
  EXPECT_EQ(j2["serving"]["predicted"]["calibrated_at"], s["predicted"]["calibrated_at"]);
  ASSERT_EQ(run_cli_env(cache, "capacity " + model_ + " --scenario offline --requests 2 --max-batch 4 --threads 1 -q "
                        "--no-roofs -o " + again, dir_->string()).rc, 0);
  EXPECT_FALSE(nlohmann::json::parse(slurp(again))["serving"]["predicted"]["cached"].get<bool>());

  // The raw records, one line per request: the summary's TTFT percentiles recomputed from them (nearest rank).
  std::vector<double> ttft;
  std::ifstream in(lines);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json q = nlohmann::json::parse(line);
    EXPECT_EQ(q["status"], "ok") << line;
    ASSERT_EQ(q["token_ms"].size(), 6u) << line;
    EXPECT_EQ(q["first_token_ms"], q["token_ms"][0]) << line;
    EXPECT_EQ(q["end_ms"], q["token_ms"][5]) << line;
    ttft.push_back(q["first_token_ms"].get<double>() - q["scheduled_ms"].get<double>());
  }
  ASSERT_EQ(ttft.size(), 12u);
  std::sort(ttft.begin(), ttft.end());
  EXPECT_NEAR(s["summary"]["ttft_ms"]["p50"].get<double>(), ttft[5], 1e-6);  // ceil(0.5 × 12) = the 6th
  EXPECT_NEAR(s["summary"]["ttft_ms"]["p99"].get<double>(), ttft[11], 1e-6);
  // The report keeps each request's TTFT too (what history and compare test): the records' own, in schedule order.
  ASSERT_EQ(s["samples"]["ttft_ms"].size(), 12u);
  std::vector<double> kept = s["samples"]["ttft_ms"].get<std::vector<double>>();
  std::sort(kept.begin(), kept.end());
  for (size_t i = 0; i < 12; ++i) EXPECT_NEAR(kept[i], ttft[i], 1e-6);
  EXPECT_EQ(s["samples"]["tpot_ms"].size(), 12u);
}

// A decoder's runs go to the results database like any timing: history shows each run's TTFT, TPOT and output
// ms/token as trends, compare tests them request by request, and the report has its HTML page.
TEST_F(GenerativeServingTest, ServingRunsGoToTheDatabaseToCompareAndToTheirPage) {
  const std::string cache = "XDG_CACHE_HOME=" + (*dir_ / "cache-db").string() + " ";
  const std::string db = (*dir_ / "serving.db").string();
  for (const char* name : {"a", "b"}) {
    const std::string out = (*dir_ / (std::string(name) + ".json")).string();
    const CliResult r = run_cli_env(cache, "capacity " + model_ + " --scenario offline --requests 12 --input-tokens 6 "
                                    "--output-tokens 5 --max-batch 4 --threads 1 -q --no-roofs --no-predict --db " + db +
                                    " -o " + out + " --html " + (*dir_ / (std::string(name) + ".html")).string(),
                                    dir_->string());
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  const std::string label = "continuous max-batch=4 threads=1 · offline requests=12";
  const CliResult h = run_cli("history --db " + db + " --json", dir_->string());
  ASSERT_EQ(h.rc, 0) << h.err;
  std::map<std::string, size_t> points;
  const nlohmann::json trends = nlohmann::json::parse(h.out);
  for (const auto& series : trends["series"]) points[series["config"].get<std::string>()] = series["points"].size();
  for (const char* item : {" · TTFT", " · TPOT", " · output ms/token"}) {
    EXPECT_EQ(points[label + item], 2u) << label + item << "\n" << h.out.substr(0, 2000);
  }
  const CliResult c = run_cli("compare " + (*dir_ / "a.json").string() + " " + (*dir_ / "b.json").string() + " --json",
                              dir_->string());
  ASSERT_TRUE(c.rc == 0 || c.rc == 1) << c.err;
  std::map<std::string, int64_t> compared;  // item -> the samples BASE's side of the test had
  const nlohmann::json comparison = nlohmann::json::parse(c.out);
  for (const auto& item : comparison["items"])
    if (item.contains("latency")) compared[item["config"].get<std::string>()] = item["latency"]["base_n"].get<int64_t>();
  EXPECT_EQ(compared[label + " · TTFT"], 12) << c.out.substr(0, 2000);
  EXPECT_EQ(compared[label + " · TPOT"], 12);
  const std::string page = slurp((*dir_ / "a.html").string());
  EXPECT_NE(page.find("\"serving\":{\"settings\""), std::string::npos) << "the page embeds the serving section";
  const CliResult again = run_cli("report " + (*dir_ / "a.json").string() + " -o " + (*dir_ / "again.html").string(),
                                  dir_->string());
  EXPECT_EQ(again.rc, 0) << again.err;
  EXPECT_TRUE(fs::exists(*dir_ / "again.html"));
}

// --instances 2: two runtime processes side by side, requests dealt in turn; the run's records hold every request once
// under its own id, the prediction simulates the same two instances, and the summary says how it was served.
TEST_F(GenerativeServingTest, TwoInstancesServeTheRequestsSideBySide) {
  const std::string cache = "XDG_CACHE_HOME=" + (*dir_ / "cache-instances").string() + " ";
  const std::string report = (*dir_ / "instances.json").string(), lines = (*dir_ / "instances.jsonl").string();
  const CliResult r = run_cli_env(cache, "capacity " + model_ + " --instances 2 --threads 1 --scenario offline "
                                  "--requests 8 --input-tokens 6 --output-tokens 5 --max-batch 2 --no-roofs --no-db "
                                  "-o " + report + " --queries " + lines, dir_->string());
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("2 instances (round-robin), each: continuous batching"), std::string::npos) << r.out;
  const nlohmann::json s = nlohmann::json::parse(slurp(report)).at("serving");
  EXPECT_EQ(s["settings"]["instances"], 2);
  EXPECT_EQ(s["settings"]["threads"], 1);
  EXPECT_EQ(s["summary"]["completed"], 8);
  EXPECT_LE(s["max_batch_seen"].get<int64_t>(), 2);
  EXPECT_EQ(s["predicted"]["summary"]["completed"], 8);
  std::set<int64_t> ids;
  std::ifstream in(lines);
  for (std::string line; std::getline(in, line);) ids.insert(nlohmann::json::parse(line)["id"].get<int64_t>());
  EXPECT_EQ(ids, (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  for (const char* bad : {"--instances 0", "--instances 1,2"}) {
    const CliResult b = run_cli("capacity " + model_ + " --scenario offline --requests 2 " + bad + " -q --no-db",
                                dir_->string());
    EXPECT_EQ(b.rc, 2) << bad;
    EXPECT_NE(b.err.find("--instances"), std::string::npos) << b.err;
  }
}

// --find-peak on the concurrency scenario: a count of users searched in whole numbers from the predicted peak. With 2
// slots and a TTFT limit of half what one request alone takes end to end (measured here first), a user beyond the
// slots waits for a whole request, so a finite peak exists; the search's own statements are checked against its runs:
// the peak is a count that ran VALID, the bracket's top one that ran INVALID one user above it.
TEST_F(GenerativeServingTest, FindPeakSearchesTheMostUsersThatHoldFromThePredictedPeak) {
  const std::string cache = "XDG_CACHE_HOME=" + (*dir_ / "cache-peak").string() + " ";
  const std::string common = "capacity " + model_ + " --scenario concurrency --input-tokens 8 --output-tokens 12 "
                             "--max-batch 2 --threads 1 -q --no-roofs ";
  const CliResult alone = run_cli_env(cache, common + "--users 1 --requests 6 --no-predict --json", dir_->string());
  ASSERT_EQ(alone.rc, 0) << alone.err;
  const double e2e = nlohmann::json::parse(alone.out)["serving"]["summary"]["e2e_ms"]["p50"].get<double>();
  ASSERT_GT(e2e, 0);
  const std::string report = (*dir_ / "peak.json").string();
  // 30 requests a point: at p50, early stopping then lets a few be over the limit (12 allowed one, and under the
  // sanitizers the first requests after a runner starts can take several times longer).
  const CliResult r = run_cli_env(cache, common + "--requests 30 --percentile 50 --find-peak --slo ttft=" +
                                  std::to_string(e2e / 2) + "ms -o " + report, dir_->string());
  ASSERT_TRUE(r.rc == 0 || r.rc == 1) << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(report)).at("serving_search");
  EXPECT_EQ(s["kind"], "find-peak");
  EXPECT_EQ(s["axis"], "users");
  ASSERT_GE(s["runs"].size(), 2u) << s.dump();
  EXPECT_LE(s["runs"].size(), 12u);
  std::map<int64_t, bool> verdicts;
  for (const auto& run : s["runs"]) {
    const int64_t users = run["settings"]["users"].get<int64_t>();
    EXPECT_GE(users, 1);
    EXPECT_EQ(run["settings"]["max_batch"], 2);
    EXPECT_TRUE(run.contains("predicted")) << "each live point carries its simulation";
    EXPECT_EQ(run["summary"]["completed"], 30);
    verdicts[users] = run["verdict"]["valid"].get<bool>();
  }
  EXPECT_EQ(verdicts.size(), s["runs"].size()) << "a user count run twice";
  const auto peak = s["peak"].get<double>();
  ASSERT_GT(peak, 0) << r.out;
  EXPECT_TRUE(verdicts.at(static_cast<int64_t>(peak)));
  EXPECT_LE(peak, 16) << "users past the 2 slots queue a whole request: " << r.out;
  if (s["converged"].get<bool>()) {
    EXPECT_EQ(s["upper"].get<double>(), peak + 1);
    EXPECT_FALSE(verdicts.at(static_cast<int64_t>(peak) + 1));
  }
  EXPECT_GT(s["predicted_peak"].get<double>(), 0) << r.out;
  EXPECT_EQ(r.rc, 0) << "a VALID peak exits 0";
  EXPECT_NE(r.out.find("peak: " + std::to_string(static_cast<int64_t>(peak)) + " users VALID"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("predicted peak"), std::string::npos) << r.out;

  // --budget is the decoder's search's too: no point starts after it (the first always runs).
  const CliResult cut = run_cli_env(cache, common + "--requests 30 --percentile 50 --find-peak --slo ttft=" +
                                    std::to_string(e2e / 2) + "ms --budget 1ms -o " + report, dir_->string());
  const nlohmann::json c = nlohmann::json::parse(slurp(report)).at("serving_search");
  EXPECT_EQ(c["runs"].size(), 1u) << cut.err;
  EXPECT_NE(c["stopped"].get<std::string>().find("--budget 0.001s ran out"), std::string::npos) << c["stopped"];
  EXPECT_FALSE(c["converged"].get<bool>());
}

// --sweep max-batch on the concurrency scenario: one run per value with as many users as slots, and the Pareto front
// the report names holds against the runs' own figures — no run off the front beats one on it, and each run off it
// is beaten by one on it.
TEST_F(GenerativeServingTest, ASweepOfMaxBatchNamesItsParetoFront) {
  const std::string cache = "XDG_CACHE_HOME=" + (*dir_ / "cache-sweep").string() + " ";
  const std::string report = (*dir_ / "sweep.json").string();
  const CliResult r = run_cli_env(cache, "capacity " + model_ + " --scenario concurrency --input-tokens 8 "
                                  "--output-tokens 10 --requests 8 --threads 1 --sweep max-batch=1,2,4 -q --no-roofs -o " + report,
                                  dir_->string());
  ASSERT_TRUE(r.rc == 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(report)).at("serving_search");
  EXPECT_EQ(s["kind"], "sweep");
  ASSERT_EQ(s["runs"].size(), 3u);
  std::vector<std::pair<double, double>> pts;
  for (size_t i = 0; i < 3; ++i) {
    const auto& run = s["runs"][i];
    EXPECT_EQ(run["settings"]["max_batch"], int64_t{1} << i);
    EXPECT_EQ(run["settings"]["users"], int64_t{1} << i) << "users follow the slots without --users";
    EXPECT_LE(run["max_batch_seen"].get<int64_t>(), int64_t{1} << i);
    pts.push_back({run["summary"]["output_tokens_per_s"].get<double>(),
                   run["summary"]["tokens_per_s_per_user"]["mean"].get<double>()});
  }
  auto beats = [&](size_t a, size_t b) {
    return pts[a].first >= pts[b].first && pts[a].second >= pts[b].second &&
           (pts[a].first > pts[b].first || pts[a].second > pts[b].second);
  };
  std::vector<size_t> front;
  for (const auto& i : s["pareto"]) front.push_back(i.get<size_t>());
  ASSERT_FALSE(front.empty());
  for (size_t i = 0; i < 3; ++i) {
    const bool on = std::find(front.begin(), front.end(), i) != front.end();
    for (size_t j = 0; j < 3; ++j) {
      if (on) {
        EXPECT_FALSE(beats(j, i)) << "run " << j << " beats front run " << i;
      }
    }
    if (!on) {
      EXPECT_TRUE(std::any_of(front.begin(), front.end(), [&](size_t f) { return beats(f, i); })) << "run " << i;
    }
  }
  for (size_t k = 1; k < front.size(); ++k) EXPECT_LE(pts[front[k - 1]].first, pts[front[k]].first);
  const int64_t knee = s["knee"].get<int64_t>();
  EXPECT_TRUE(knee == -1 || std::find(front.begin(), front.end(), static_cast<size_t>(knee)) != front.end());
  EXPECT_NE(r.out.find("Pareto front (tokens/s per user against output tokens/s)"), std::string::npos) << r.out;
}

// The decode steps on the roofline, against a datasheet (so the arithmetic is checkable): each step's floor is its
// FLOPs or bytes over the ceiling that limits it, the counts the linear model gives at four rows are the analysis'
// own at four rows, decode tokens/s allowed grows with the batch, and the step turns compute-bound where its
// intensity reaches the ridge (15 GFLOP/s over 30 GB/s: 0.5 FLOPs per byte; a row of this tiny decoder adds about
// 0.66, its activations counted at every node's boundary as the analysis counts them).
TEST_F(GenerativeServingTest, TheDecodeStepsArePlacedOnTheRooflinePerBatch) {
  const std::string roofs = (*dir_ / "datasheet.json").string(), report = (*dir_ / "roofline.json").string();
  std::ofstream(roofs) << R"({"source":"datasheet","compute":[{"name":"fp32_fma","isa":"avx2","dtype":"fp32",
      "threads":1,"gflops":15}],"memory":[{"level":"DRAM","kernel":"read","threads":1,"gbps":30}]})";
  const std::string cache = "XDG_CACHE_HOME=" + (*dir_ / "cache-roof").string() + " ";
  const CliResult r = run_cli_env(cache, "capacity " + model_ + " --scenario offline --requests 4 --input-tokens 24 "
                                  "--output-tokens 16 --max-batch 4 --threads 1 -q --roofs " + roofs + " -o " + report,
                                  dir_->string());
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(report));
  EXPECT_EQ(j["hardware"]["source"], "datasheet");
  const nlohmann::json& rl = j.at("serving_roofline");
  EXPECT_EQ(rl["context"], 24 + 16 / 2);
  ASSERT_EQ(rl["steps"].size(), 3u);
  double last_ceiling = 0;
  for (size_t i = 0; i < 3; ++i) {
    const nlohmann::json& st = rl["steps"][i];
    const int64_t b = int64_t{1} << i;
    EXPECT_EQ(st["batch"], b);
    const double flops = st["flops"], bytes = st["bytes"];
    const double floor_ms = std::max(flops / 15e9, bytes / 30e9) * 1e3;
    EXPECT_NEAR(st["floor_ms"].get<double>(), floor_ms, floor_ms * 1e-6) << st.dump();
    EXPECT_EQ(st["bound"], flops / bytes >= 0.5 ? "compute" : "memory") << st.dump();
    EXPECT_GT(st["calibrated_ms"].get<double>(), 0) << "the calibrated step time beside the floor";
    EXPECT_NEAR(st["kv_bytes"].get<double>(), static_cast<double>(b * 32) * rl["kv_bytes_per_token"].get<double>(), 1);
    EXPECT_GT(st["tokens_per_s_ceiling"].get<double>(), last_ceiling);
    last_ceiling = st["tokens_per_s_ceiling"];
  }
  // The linear model's four rows against the analysis run at four rows, without the nodes that read initializers
  // alone (the runtime folds them at load: this zoo decoder's LM-head Transpose of its tied embedding).
  struct Counts {
    double flops = 0, bytes = 0;
  };
  auto analysed = [&](int64_t b) {
    ShapeOverrides at;
    at.shapes = step_shapes(io_, b, 1, 32);
    const Model mm = load_model(model_, at);
    std::set<std::string> initializers;
    for (const auto& i : mm.initializers) initializers.insert(i.name);
    Counts c;
    for (const NodeAnalysis& n : analyze_model(mm, CostRegistry::builtin()).nodes) {
      const bool folded = !n.inputs.empty() && std::all_of(n.inputs.begin(), n.inputs.end(), [&](const std::string& t) {
        return initializers.count(t) > 0;
      });
      if (folded) continue;
      c.flops += static_cast<double>(n.flops);
      c.bytes += static_cast<double>(n.bytes_read + n.bytes_written);
    }
    return c;
  };
  const Counts four = analysed(4);
  ASSERT_GT(four.flops, 0);
  // (rooflens also folds Constant nodes and the shape arithmetic on them: a few hundred bytes this count keeps)
  EXPECT_NEAR(rl["steps"][2]["flops"].get<double>(), four.flops, 1e-3 * four.flops);
  EXPECT_NEAR(rl["steps"][2]["bytes"].get<double>(), four.bytes, 1e-3 * four.bytes);
  const int64_t from = rl["compute_bound_from"];
  ASSERT_GT(from, 0) << "a tiny decoder's step reaches the ridge at some batch";
  auto intensity = [&](int64_t b) {
    const Counts c = analysed(b);
    return c.flops / c.bytes;
  };
  EXPECT_GE(intensity(from), 0.5);
  if (from > 1) {
    EXPECT_LT(intensity(from - 1), 0.5);
  }
  EXPECT_NE(r.out.find("on the roofline (decode steps at 32 tokens of context per row"), std::string::npos) << r.out;
}

TEST_F(GenerativeServingTest, BadFlagsAndBadTracesGetOneLineEach) {
  const std::string trace = (*dir_ / "bad.jsonl").string();
  std::ofstream(trace) << "{\"timestamp\": 0, \"input_tokens\": 8, \"output_tokens\": 4}\n{\"timestamp\": 5}\n";
  const std::string squeezenet = (*dir_ / "squeezenet.onnx").string();
  zoo::ZooOptions small;
  small.image = 64;
  save_zoo_model("squeezenet1_0", small, squeezenet);
  for (const auto& [args, rc, says] : std::vector<std::tuple<std::string, int, std::string>>{
           {squeezenet + " --users 4", 2, "--users: only for a decoder with a KV cache"},
           {squeezenet + " --scenario concurrency", 2, "--scenario concurrency: only for a decoder"},
           {model_ + " --scenario offline --find-peak", 2, "--find-peak: a decoder's peak is a rate"},
           {model_ + " --scenario concurrency --find-peak --queries q.jsonl", 2, "--queries: one run's records"},
           {model_ + " --scenario concurrency --find-peak", 2, "--find-peak: give the objectives the peak must hold"},
           {model_ + " --scenario concurrency --find-peak --slo ttft=1s --requests 40", 2,
            "a p99 verdict needs at least 459 requests"},
           {model_ + " --scenario concurrency --sweep batch=1,2", 2, "give max-batch=1,2,4,8"},
           {model_ + " --scenario server --qps 1 --find-peak --slo ttft=1s --requests 459 --budget soon", 2,
            "--budget soon"},
           {model_ + " --scenario server --qps 1 --find-peak --slo ttft=1s --requests 459 --precision 150%", 2,
            "--precision: give a fraction"},
           {model_ + " --scenario concurrency --sweep max-batch=0,2", 2, "'0' is not a whole number"},
           {model_ + " --scenario concurrency --sweep max-batch=2,x", 2, "'x' is not a whole number"},
           {model_ + " --scenario offline --sweep users=1,2", 2, "add --scenario concurrency"},
           {model_ + " --scenario concurrency --sweep max-batch=1,2 --find-peak", 2, "--find-peak and --sweep: one at a time"},
           {model_ + " --scenario offline --search", 2, "--search: not for a decoder's generative scenarios yet"},
           {model_ + " --scenario server --requests 3", 2, "needs --qps"},
           {model_ + " --scenario offline --slo fast", 2, "--slo fast: give ttft=2s,tpot=100ms"},
           {model_ + " --scenario offline --slo ttft=2s --percentile 100", 2, "--percentile 100: give a percentile between"},
           {model_ + " --scenario offline --input-tokens uniform:9-3", 2, "LOW is above HIGH"},
           {model_ + " --scenario offline --max-batch 8 --max-batched-tokens 4", 2, "is below --max-batch 8"},
           {model_ + " --scenario offline --kv-budget lots", 2, "--kv-budget lots: give a number with a unit, e.g. --kv-budget 2GB"},
           {model_ + " --scenario offline --kv-budget 2parsecs", 2, "--kv-budget 2parsecs: give a size"},
           {model_ + " --trace " + trace, 1, trace + ":2: 'input_tokens'"}}) {
    const CliResult r = run_cli("capacity " + args + " -q", dir_->string());
    EXPECT_EQ(r.rc, rc) << args << ": " << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.err_lines(), 1) << args << ": " << r.err;
  }
}

}  // namespace
