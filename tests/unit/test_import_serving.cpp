// The serving importers on real result files (tests/fixtures/import/{vllm,aiperf}/, SOURCE.md there): vLLM's
// benchmark_serving.py and `vllm bench serve` --save-result, AIPerf's profile_export_aiperf.json in its three layouts.
// Each figure is checked against the file's own string, and the files' totals against each other (completed =
// request_throughput × duration), so a field read into the wrong place shows. A figure a file does not give is named,
// never 0; per-request arrays (a layout no licensed real file had) are checked on a file written here.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/errors.h"
#include "core/serving_items.h"
#include "importers/driver/import.h"
#include "importers/registry/registry.h"
#include "reporters/serving_summary.h"
#include "support/import_fixtures.h"

namespace rooflens {
namespace {

constexpr const char* kVllmScript = "vllm/benchmark_serving_2025-05_summary_llama3.1-8b_rate5.5.json";
constexpr const char* kVllmServe = "vllm/vllm_bench_serve_2026-04_summary_gemma4-31b_tpu_rate2_1failed.json";
constexpr const char* kAiperfRecords = "aiperf/aiperf_0.1_records_gpt-oss-20b_c100.json";
constexpr const char* kAiperfFlat = "aiperf/aiperf_0.2-dev_llama3-8b_c1_streaming.json";
constexpr const char* kAiperfSchema = "aiperf/aiperf_0.4.0_schema1.0_mock_c1.json";

ServingResult read_serving(const std::string& format, const std::string& rel) {
  importers::Imported i = importers::find_importer(format).read({test::fixture(rel)}, {});
  EXPECT_TRUE(i.measurement.kernels.empty());
  EXPECT_TRUE(i.serving.has_value());
  return i.serving.value_or(ServingResult{});
}

bool named(const ServingResult& r, const std::string& figure) {
  return std::find(r.not_given.begin(), r.not_given.end(), figure) != r.not_given.end();
}

TEST(ImportServing, EachRealFileIsRecognisedByItsImporter) {
  for (const char* rel : {kVllmScript, kVllmServe}) {
    EXPECT_EQ(importers::detect_importer({test::fixture(rel)}).name(), "vllm") << rel;
  }
  for (const char* rel : {kAiperfRecords, kAiperfFlat, kAiperfSchema}) {
    EXPECT_EQ(importers::detect_importer({test::fixture(rel)}).name(), "aiperf") << rel;
  }
}

TEST(ImportServing, BenchmarkServingScriptResultKeepsItsFiguresAndNamesTheAbsentOnes) {
  const ServingResult r = read_serving("vllm", kVllmScript);
  EXPECT_EQ(r.settings.scenario, "server");
  EXPECT_DOUBLE_EQ(r.settings.rate, 5.5);
  EXPECT_DOUBLE_EQ(r.settings.burstiness, 100.0);
  EXPECT_EQ(r.summary.requests, 250);
  EXPECT_EQ(r.summary.completed, 250);
  EXPECT_EQ(r.summary.failed, 0);
  EXPECT_EQ(r.settings.lengths, "mean 9999 in / 100 out");  // 2,499,750 and 25,000 tokens over 250 requests
  EXPECT_DOUBLE_EQ(r.summary.ttft_ms.p50, 432.9343195131514);
  EXPECT_DOUBLE_EQ(r.summary.ttft_ms.p95, 682.4944630585377);
  EXPECT_DOUBLE_EQ(r.summary.ttft_ms.p99, 818.0468749173449);
  EXPECT_DOUBLE_EQ(r.summary.tpot_ms.mean, 23.67174194738824);
  EXPECT_DOUBLE_EQ(r.summary.itl_ms.p99, 235.04197018919513);
  EXPECT_DOUBLE_EQ(r.summary.output_tokens_per_s, 531.8717163387223);
  // The file's own totals agree with each other as read: completed = request_throughput × duration.
  EXPECT_NEAR(r.summary.request_throughput * r.summary.duration_s, 250, 1e-6);
  EXPECT_NEAR(r.summary.input_tokens_per_s + r.summary.output_tokens_per_s, r.summary.total_tokens_per_s, 1e-6);
  // Not in this file: p90 (only --metric-percentiles 95,99 were asked), the maxima, E2E, goodput (null), queue time.
  for (const char* absent : {"ttft_ms.p90", "ttft_ms.max", "e2e_ms", "goodput", "good", "queue_ms", "tokens_per_s_per_user"}) {
    EXPECT_TRUE(named(r, absent)) << absent;
  }
  EXPECT_FALSE(named(r, "ttft_ms.p99"));
  EXPECT_TRUE(r.samples.empty());
  EXPECT_EQ(r.measured_by, "vllm");
  // The summary says what the file lacks instead of printing zeros, and judges nothing.
  const std::string text = serving_summary(r, "meta-llama/Llama-3.1-8B-Instruct", "vllm");
  EXPECT_EQ(text.rfind("NOT JUDGED", 0), 0u) << text;
  EXPECT_NE(text.find("goodput: not in the file"), std::string::npos) << text;
  EXPECT_NE(text.find("TTFT ms"), std::string::npos);
  EXPECT_EQ(text.find(" 0.00 "), std::string::npos) << "an absent figure printed as 0:\n" << text;
}

TEST(ImportServing, VllmBenchServeResultCountsItsFailedRequest) {
  const ServingResult r = read_serving("vllm", kVllmServe);
  EXPECT_EQ(r.summary.requests, 1000);
  EXPECT_EQ(r.summary.completed, 999);
  EXPECT_EQ(r.summary.failed, 1);
  EXPECT_DOUBLE_EQ(r.settings.rate, 2.0);
  EXPECT_DOUBLE_EQ(r.summary.ttft_ms.p50, 134.4028570001683);
  EXPECT_DOUBLE_EQ(r.summary.tpot_ms.p99, 38.33583715600124);
  EXPECT_NEAR(r.summary.request_throughput * r.summary.duration_s, 999, 1e-6);
  // Its items: TTFT and TPOT from the summary (no samples in the file), and the machine's throughput.
  const std::vector<ServingItem> items = serving_items(r);
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].config, "server qps=2 · TTFT");
  EXPECT_TRUE(items[0].samples_ms.empty());
  EXPECT_DOUBLE_EQ(items[0].stats.median, 134.4028570001683);
  EXPECT_NEAR(items[2].samples_ms.at(0), 1000 / 507.00990786536977, 1e-9);
}

TEST(ImportServing, PerRequestArraysGiveEachSuccessfulRequestsTtftAndTpot) {
  // The arrays as benchmark_serving.py writes them: seconds, one entry per request sent, failures included.
  const importers::InputFile f{"detailed.json", R"({"date": "20250101-000000", "backend": "vllm", "model_id": "m",
    "num_prompts": 3, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 2, "duration": 2.0, "completed": 2,
    "total_input_tokens": 20, "total_output_tokens": 8, "request_throughput": 1.0, "output_throughput": 4.0,
    "total_token_throughput": 14.0, "mean_ttft_ms": 150.0, "median_ttft_ms": 150.0, "p99_ttft_ms": 200.0,
    "input_lens": [10, 10, 10], "output_lens": [5, 3, 0], "ttfts": [0.1, 0.2, 0.0], "latencies": [0.5, 0.8, 0.0],
    "itls": [[0.1, 0.1, 0.1, 0.1], [0.3, 0.3], []], "errors": ["", "", "connection reset"]})"};
  const importers::Imported i = importers::find_importer("vllm").read({f}, {});
  const ServingResult& r = *i.serving;
  EXPECT_EQ(r.settings.scenario, "concurrency");
  EXPECT_EQ(r.settings.users, 2);
  EXPECT_EQ(r.summary.failed, 1);
  ASSERT_EQ(r.samples.ttft_ms.size(), 2u);
  EXPECT_DOUBLE_EQ(r.samples.ttft_ms[0], 100);
  EXPECT_DOUBLE_EQ(r.samples.ttft_ms[1], 200);
  ASSERT_EQ(r.samples.tpot_ms.size(), 2u);
  EXPECT_DOUBLE_EQ(r.samples.tpot_ms[0], 100);  // (500 - 100) / (5 - 1)
  EXPECT_DOUBLE_EQ(r.samples.tpot_ms[1], 300);  // (800 - 200) / (3 - 1)
  EXPECT_EQ(i.model_path, "m");
}

TEST(ImportServing, AiperfRecordsLayoutReadsCancelledRequestsAsFailed) {
  const ServingResult r = read_serving("aiperf", kAiperfRecords);
  EXPECT_EQ(r.settings.scenario, "concurrency");
  EXPECT_EQ(r.settings.users, 100);
  EXPECT_EQ(r.summary.completed, 89);
  EXPECT_EQ(r.summary.failed, 11);
  EXPECT_EQ(r.summary.requests, 100);
  EXPECT_DOUBLE_EQ(r.summary.ttft_ms.p50, 2369.317693);
  EXPECT_DOUBLE_EQ(r.summary.ttft_ms.max, 3853.857423);
  EXPECT_DOUBLE_EQ(r.summary.tpot_ms.p99, 33.73224787406911);  // AIPerf's inter_token_latency is vLLM's TPOT
  EXPECT_NEAR(r.summary.request_throughput * r.summary.duration_s, 89, 1e-3);
  EXPECT_EQ(r.settings.lengths, "mean 550 in / 243 out");
}

TEST(ImportServing, AiperfFlatLayoutReadsItsModelChunkGapsAndPerUserRate) {
  const importers::Imported i = importers::find_importer("aiperf").read({test::fixture(kAiperfFlat)}, {});
  const ServingResult& r = *i.serving;
  EXPECT_EQ(i.model_path, "meta-llama/Meta-Llama-3-8B-Instruct");
  EXPECT_EQ(r.settings.users, 1);
  EXPECT_EQ(r.summary.completed, 64);
  EXPECT_DOUBLE_EQ(r.summary.ttft_ms.p50, 26.6377605);
  EXPECT_GT(r.summary.itl_ms.n, 0);  // inter_chunk_latency
  EXPECT_FALSE(named(r, "tokens_per_s_per_user"));
  EXPECT_TRUE(named(r, "goodput"));  // written as null: the run had no --goodput
  EXPECT_NEAR(r.summary.request_throughput * r.summary.duration_s, 64, 1e-3);
}

TEST(ImportServing, AiperfNonStreamingRunHasNoTtftItemsButItsThroughput) {
  const importers::Imported i = importers::find_importer("aiperf").read({test::fixture(kAiperfSchema)}, {});
  const ServingResult& r = *i.serving;
  EXPECT_EQ(i.backend.version, "0.4.0");
  EXPECT_TRUE(named(r, "ttft_ms"));
  EXPECT_TRUE(named(r, "tpot_ms"));
  const std::vector<ServingItem> items = serving_items(r);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].config, "concurrency users=1 · output ms/token");
}

TEST(ImportServing, TheImportCommandMakesAServingReportAndRefusesLayerFlags) {
  ImportSpec spec;
  spec.files = {test::fixture_path(kVllmScript)};
  ImportResult res = run_import(spec);
  EXPECT_EQ(res.format, "vllm");
  ASSERT_TRUE(res.report.serving.has_value());
  EXPECT_TRUE(res.report.runs.empty());
  EXPECT_EQ(res.report.model.name, "meta-llama/Llama-3.1-8B-Instruct");
  // The report round-trips with what the file lacked.
  const Report back = report_from_json(report_to_json(res.report));
  EXPECT_EQ(back.serving->not_given, res.report.serving->not_given);
  EXPECT_EQ(back.serving->measured_by, "vllm");
  spec.model = "model.onnx";
  EXPECT_THROW(run_import(spec), UsageError);
}

TEST(ImportServing, BadFilesGetOneLineNamingTheFileAndField) {
  auto message = [](const std::string& format, const std::string& text) {
    try {
      importers::find_importer(format).read({{"bad.json", text}}, {});
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string head = R"({"model_id": "m", "num_prompts": 2, "request_rate": 1, "duration": 1, )";
  EXPECT_NE(message("vllm", head + R"("completed": 3, "request_throughput": 3, "output_throughput": 1})")
                .find("bad.json: completed"), std::string::npos);
  EXPECT_NE(message("vllm", head).find("bad.json: not valid JSON"), std::string::npos);
  EXPECT_NE(message("vllm", R"({"model_id": "m"})" "\n" R"({"model_id": "m"})").find("holds 2 results"), std::string::npos);
  EXPECT_NE(message("aiperf", R"({"input_config": {}, "request_throughput": {"avg": 1}})").find("request_count"),
            std::string::npos);
  const std::string seconds = message("aiperf", R"({"request_count": {"avg": 2}, "time_to_first_token": {"unit": "s", "avg": 1}})");
  EXPECT_NE(seconds.find("time_to_first_token.unit"), std::string::npos) << seconds;
  for (const std::string& m : {message("vllm", head), message("aiperf", "{")}) {
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace rooflens
