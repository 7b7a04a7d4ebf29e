// results.json (rooflens.bench/1) round-trips byte for byte, keeps optional parts optional, and refuses
// foreign or malformed documents with one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/bench_results.h"
#include "core/errors.h"

using namespace rooflens;

namespace {
BenchResults sample_results() {
  BenchResults r;
  r.tool.version = "0.1.0";
  r.tool.command = "bench";
  r.options.mode = "both";
  r.options.rtol = 1e-3;
  r.options.atol = 1e-5;
  r.options.sources = {"/data/node"};
  r.options.warmup_iterations = 1;
  r.options.warmup_ms = 100;
  r.options.iterations = 10;
  r.options.duration_s = 1;
  r.options.profile_iterations = 5;
  MachineDesc m;
  m.model = "Some CPU";
  m.cores = 2;
  r.system = m;
  BenchConfig c;
  c.label = "onnxruntime:graphOptimizationLevel=all";
  c.backend.name = "onnxruntime";
  c.backend.options = {{"graphOptimizationLevel", "all"}};
  r.configs.push_back(c);

  BenchEntry pass;
  pass.model = "test_abs";
  pass.config = c.label;
  pass.status = "pass";
  pass.latencies_ms = {0.1, 0.3, 0.2};
  pass.latency_ms.n = 3;
  pass.latency_ms.median = 0.2;
  Validation v;
  v.reference = "test_data_set_0";
  v.data_sets = 1;
  v.outputs.push_back({"y", "float", {3, 4}, 12, 1, 0.5, 1.0 / 3.0, false, "1 of 12 elements differ", 2, "mismatch"});
  v.first_mismatches.push_back({"y", 7, "1.5", "2", 2});
  pass.validation = v;
  BenchMetrics met;
  met.model_nodes = 10;
  met.kernels = 4;
  met.fused_ratio = 0.6;
  met.providers.push_back({"CPUExecutionProvider", 4, 1.25, 1.0});
  pass.metrics = met;
  r.entries.push_back(pass);

  BenchEntry crash;
  crash.model = "<img src=x onerror=alert(1)>";
  crash.config = c.label;
  crash.status = "crash";
  crash.stage = "run";
  crash.error_type = "died";
  crash.message = "runner killed by SIGSEGV";
  crash.stderr_tail = "line 1\nline 2";
  r.entries.push_back(crash);
  return r;
}
}  // namespace

TEST(BenchResultsJson, RoundTripsByteForByte) {
  std::string first = bench_results_to_json(sample_results());
  BenchResults back = bench_results_from_json(first);
  EXPECT_EQ(bench_results_to_json(back), first);
  ASSERT_EQ(back.entries.size(), 2u);
  ASSERT_TRUE(back.entries[0].validation.has_value());
  EXPECT_EQ(back.entries[0].validation->outputs[0].max_rel_error, 1.0 / 3.0);
  EXPECT_EQ(back.entries[0].metrics->kernels, 4);
  EXPECT_FALSE(back.entries[1].validation.has_value());
  EXPECT_FALSE(back.entries[1].metrics.has_value());
  EXPECT_EQ(back.entries[1].model, "<img src=x onerror=alert(1)>");
  EXPECT_EQ(back.system->model, "Some CPU");
  EXPECT_NE(first.find("\"schema\": \"rooflens.bench/1\""), std::string::npos);
  EXPECT_EQ(back.entries[0].validation->outputs[0].failure, "mismatch");
  EXPECT_EQ(back.entries[0].validation->first_mismatches[0].data_set, 2);
  EXPECT_EQ(back.options.profile_iterations, 5);
}

// Fields added after the contract first shipped (data_set, failure, timing options) are optional on read, so a
// results.json written before them still loads.
TEST(BenchResultsJson, ReadsDocumentsWithoutLaterFields) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(bench_results_to_json(sample_results()));
  auto& v = j["entries"][0]["validation"];
  v["outputs"][0].erase("data_set");
  v["outputs"][0].erase("failure");
  v["first_mismatches"][0].erase("data_set");
  j["options"].erase("profile_iterations");
  BenchResults back = bench_results_from_json(j.dump(2));
  EXPECT_EQ(back.entries[0].validation->outputs[0].failure, "");
  EXPECT_EQ(back.entries[0].validation->first_mismatches[0].data_set, 0);
  EXPECT_EQ(back.options.profile_iterations, 0);
  EXPECT_EQ(back.options.iterations, 10);
}

TEST(BenchResultsJson, EntriesRoundTripAsSingleLines) {
  const BenchResults r = sample_results();
  const BenchEntry& e = r.entries[1];
  std::string line = bench_entry_to_json_line(e);
  EXPECT_EQ(line.find('\n'), std::string::npos);  // the stderr tail's newline is escaped
  BenchEntry back = bench_entry_from_json(line);
  EXPECT_EQ(back.stderr_tail, "line 1\nline 2");
  EXPECT_EQ(bench_entry_to_json_line(back), line);
  EXPECT_THROW(bench_entry_from_json(line.substr(0, line.size() / 2)), UserError);
}

// --repeat: an entry's runs partition its samples; a journal line of a later round says which; older entries
// and options without them read as one run.
TEST(BenchResultsJson, RepetitionsAndRoundsRoundTrip) {
  BenchResults r = sample_results();
  r.options.repeat = 3;
  r.entries[0].repetitions = {1, 2};
  std::string text = bench_results_to_json(r);
  BenchResults back = bench_results_from_json(text);
  EXPECT_EQ(back.entries[0].repetitions, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(back.options.repeat, 3);
  EXPECT_TRUE(back.entries[1].repetitions.empty());  // not timed: no runs
  EXPECT_EQ(bench_results_to_json(back), text);
  EXPECT_EQ(text.find("repetitions", text.find("\"crash\"")), std::string::npos);

  std::string line = bench_entry_to_json_line(r.entries[0], 2);
  EXPECT_NE(line.find("\"round\":2"), std::string::npos) << line;
  int64_t round = 0;
  BenchEntry e = bench_entry_from_json(line, &round);
  EXPECT_EQ(round, 2);
  EXPECT_EQ(bench_entry_to_json_line(e, round), line);
  EXPECT_EQ(bench_entry_to_json_line(r.entries[0]).find("round"), std::string::npos);  // round 1: as before
  bench_entry_from_json(bench_entry_to_json_line(r.entries[0]), &round);
  EXPECT_EQ(round, 1);

  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  j["options"].erase("repeat");
  EXPECT_EQ(bench_results_from_json(j.dump(2)).options.repeat, 1);
  j["entries"][0]["repetitions"] = {1, 1};  // 2 of 3 samples
  try {
    bench_results_from_json(j.dump(2));
    ADD_FAILURE() << "a partition of 2 samples over 3 was accepted";
  } catch (const UserError& x) {
    EXPECT_NE(std::string(x.what()).find("entry test_abs [onnxruntime:graphOptimizationLevel=all]: repetitions do "
                                         "not partition latencies_ms: the counts sum to 2 but there are 3 samples"),
              std::string::npos)
        << x.what();
  }
}

TEST(BenchResultsJson, RefusesForeignAndMalformedDocuments) {
  EXPECT_THROW(bench_results_from_json("{"), UserError);
  EXPECT_THROW(bench_results_from_json(R"({"schema": "rooflens.report/1"})"), UserError);
  std::string text = bench_results_to_json(sample_results());
  text.replace(text.find("\"status\""), 8, "\"statux\"");
  EXPECT_THROW(bench_results_from_json(text), UserError);
}
