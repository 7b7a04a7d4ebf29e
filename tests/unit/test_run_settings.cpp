// What a run ran with: the CPU budget rooflens sizes the thread pool from, ORT's effective settings and their
// sources, the thread pool and dispatch read from an ORT profile, the runner's own peak memory, the report's JSON of
// all of it, and the warnings and views that follow.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "assembly/assemble.h"
#include "backends/common/cpu_budget.h"
#include "backends/common/own_memory.h"
#include "backends/onnxruntime/ort_dispatch.h"
#include "backends/onnxruntime/ort_profile.h"
#include "backends/onnxruntime/ort_settings.h"
#include "core/coverage.h"
#include "core/errors.h"
#include "core/report.h"
#include "reporters/run_setup_text.h"

using namespace rooflens;

namespace {

// CPUs 0-3 on one package; 0/2 and 1/3 are SMT siblings (as Linux numbers a 2-core, 4-thread part).
std::optional<std::pair<int, int>> smt_pairs(int cpu) { return std::make_pair(0, cpu % 2); }
std::optional<std::pair<int, int>> unknown(int) { return std::nullopt; }

}  // namespace

TEST(CpuBudget, CountsPhysicalCoresUnderTheAffinityMask) {
  CpuBudget all = budget_of({0, 1, 2, 3}, smt_pairs);
  EXPECT_EQ(all.cores, 2);  // four logical CPUs, two cores
  EXPECT_EQ(all.cpu_list(), "0-3");
  CpuBudget siblings = budget_of({0, 2}, smt_pairs);  // taskset -c 0,2: both threads of one core
  EXPECT_EQ(siblings.cores, 1);
  EXPECT_EQ(siblings.cpu_list(), "0,2");
  CpuBudget one = budget_of({1}, smt_pairs);
  EXPECT_EQ(one.cores, 1);
  // Two packages with the same core ids are different cores.
  auto two_packages = [](int cpu) -> std::optional<std::pair<int, int>> { return std::make_pair(cpu / 2, cpu % 2); };
  EXPECT_EQ(budget_of({0, 1, 2, 3}, two_packages).cores, 4);
  // No topology: every CPU counts as a core; no mask: CPU 0.
  EXPECT_EQ(budget_of({0, 1, 2}, unknown).cores, 3);
  EXPECT_EQ(budget_of({}, unknown).cpu_list(), "0");
  EXPECT_EQ(budget_of({0, 1, 2, 5, 7, 8}, unknown).cpu_list(), "0-2,5,7-8");
}

TEST(CpuBudget, TheThreadSettingSaysWhoChoseIt) {
  CpuBudget b = budget_of({0, 1, 2, 3}, smt_pairs);
  RunSetting chosen = intra_op_setting(0, b, "intraOpNumThreads");
  EXPECT_EQ(chosen.value, "2");
  EXPECT_EQ(chosen.source, SettingSource::rooflens);
  EXPECT_NE(chosen.note.find("0-3"), std::string::npos) << chosen.note;
  RunSetting asked = intra_op_setting(3, b, "intraOpNumThreads");
  EXPECT_EQ(asked.value, "3");
  EXPECT_EQ(asked.source, SettingSource::user);
  // Threads beyond the allowed CPUs share them; up to the CPUs (SMT included) nothing needs saying.
  CpuBudget one = budget_of({0}, smt_pairs);
  EXPECT_NE(oversubscription_warning(2, one).find("2 intra-op threads share 1 CPU"), std::string::npos);
  EXPECT_EQ(oversubscription_warning(1, one), "");
  EXPECT_EQ(oversubscription_warning(4, b), "");
}

TEST(OrtSettings, EveryOptionHasItsSource) {
  CpuBudget b = budget_of({0, 1}, unknown);
  ort::OrtSessionOptions user;
  user.set("graphOptimizationLevel", "basic");
  user.set("session.intra_op.allow_spinning", "1");
  ort::OrtSessionOptions sent = user;
  sent.intraOpNumThreads = 2;
  sent.extra["session.intra_op.allow_spinning"] = "0";  // rooflens overrides the user's for turns
  RunSetting threads = ort::ort_threads(0, user, b);
  EXPECT_EQ(threads.source, SettingSource::rooflens);
  std::vector<RunSetting> s = ort::effective_settings(
      sent, user, threads, {{"session.intra_op.allow_spinning", "off between turns"}});
  std::map<std::string, const RunSetting*> by;
  for (const auto& x : s) by[x.name] = &x;
  ASSERT_EQ(by.size(), s.size());  // one entry per setting
  EXPECT_EQ(by["intra_op_threads"]->value, "2");
  EXPECT_EQ(by["opt_level"]->value, "basic");
  EXPECT_EQ(by["opt_level"]->source, SettingSource::user);
  EXPECT_EQ(by["spinning"]->value, "off");
  EXPECT_EQ(by["spinning"]->source, SettingSource::rooflens);
  EXPECT_EQ(by["spinning"]->note, "off between turns");
  EXPECT_EQ(by["memory_arena"]->value, "on");
  EXPECT_EQ(by["memory_arena"]->source, SettingSource::runtime_default);
  EXPECT_EQ(by["inter_op_threads"]->value, "unused");  // sequential: no inter-op pool
  EXPECT_EQ(by["affinity"]->value, "unpinned");
  EXPECT_EQ(by["device"]->value, "cpu");
  // -B threads=3 is the user's, and so is --threads.
  user.intraOpNumThreads = 3;
  EXPECT_EQ(ort::ort_threads(0, user, b).value, "3");
  EXPECT_EQ(ort::ort_threads(0, user, b).source, SettingSource::user);
  EXPECT_EQ(ort::ort_threads(1, user, b).value, "1");
}

namespace {

// Two runs (the first a warm-up) of an inference session with a pool of 3: two kernels per run, the second parallel,
// and a subgraph's executor inside the measured run's. Worker 11 runs tasks in the measured run, worker 12 only in the
// warm-up.
const char* kPooled = R"([
{"cat":"Node","pid":7,"tid":7,"dur":100,"ts":1010,"ph":"X","name":"a_kernel_time","args":{"op_name":"Conv",
 "thread_scheduling_stats":{"main_thread":{"thread_id":"1","block_size":[],"Distribution":0,"DistributionEnqueue":0,
 "Run":0,"Wait":0,"WaitRevoke":0},"sub_threads":{"11":{"num_run":5,"core":1},"12":{"num_run":3,"core":2}}}}},
{"cat":"Session","pid":7,"tid":7,"dur":300,"ts":1005,"ph":"X","name":"SequentialExecutor::Execute","args":{}},
{"cat":"Session","pid":7,"tid":7,"dur":320,"ts":1000,"ph":"X","name":"model_run","args":{}},
{"cat":"Node","pid":7,"tid":7,"dur":100,"ts":2010,"ph":"X","name":"a_kernel_time","args":{"op_name":"Conv",
 "thread_scheduling_stats":{"main_thread":{"thread_id":"1","block_size":[],"Distribution":0,"DistributionEnqueue":0,
 "Run":0,"Wait":0,"WaitRevoke":0},"sub_threads":{"11":{"num_run":5,"core":1},"12":{"num_run":3,"core":2}}}}},
{"cat":"Node","pid":7,"tid":7,"dur":200,"ts":2150,"ph":"X","name":"b_kernel_time","args":{"op_name":"MatMul",
 "thread_scheduling_stats":{"main_thread":{"thread_id":"1","block_size":[4],"Distribution":20,
 "DistributionEnqueue":10,"Run":100,"Wait":40,"WaitRevoke":5},"sub_threads":{"11":{"num_run":9,"core":1},
 "12":{"num_run":3,"core":2}}}}},
{"cat":"Node","pid":7,"tid":7,"dur":30,"ts":2360,"ph":"X","name":"b_fence_after","args":{}},
{"cat":"Session","pid":7,"tid":7,"dur":150,"ts":2020,"ph":"X","name":"SequentialExecutor::Execute","args":{}},
{"cat":"Session","pid":7,"tid":7,"dur":400,"ts":2005,"ph":"X","name":"SequentialExecutor::Execute","args":{}},
{"cat":"Session","pid":7,"tid":7,"dur":450,"ts":2000,"ph":"X","name":"model_run","args":{}}
])";

// One thread: ORT writes the stats as "".
const char* kSingle = R"([
{"cat":"Node","pid":7,"tid":7,"dur":100,"ts":1010,"ph":"X","name":"a_kernel_time","args":{"op_name":"Conv",
 "thread_scheduling_stats":""}},
{"cat":"Session","pid":7,"tid":7,"dur":200,"ts":1000,"ph":"X","name":"model_run","args":{}}
])";

// An older ORT: no stats at all.
const char* kOld = R"([
{"cat":"Node","pid":7,"tid":7,"dur":100,"ts":1010,"ph":"X","name":"a_kernel_time","args":{"op_name":"Conv"}},
{"cat":"Session","pid":7,"tid":7,"dur":200,"ts":1000,"ph":"X","name":"model_run","args":{}}
])";

}  // namespace

TEST(OrtDispatch, ThePoolAndWhoWorkedComeFromTheMeasuredRuns) {
  ort::OrtProfile p = ort::parse_ort_profile(kPooled, "pooled.json");
  auto t = ort::threads_observed(p, 1, 1);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->pool, 3);
  ASSERT_TRUE(t->working);
  EXPECT_EQ(*t->working, 2);  // the calling thread and worker 11; worker 12 ran nothing after the warm-up
  auto single = ort::threads_observed(ort::parse_ort_profile(kSingle, "single.json"), 0, 1);
  ASSERT_TRUE(single);
  EXPECT_EQ(single->pool, 1);
  EXPECT_EQ(single->working.value_or(-1), 1);
  EXPECT_FALSE(ort::threads_observed(ort::parse_ort_profile(kOld, "old.json"), 0, 1));
}

TEST(OrtDispatch, ExecutorSpanFencesAndPoolTimesPerRun) {
  ort::OrtProfile p = ort::parse_ort_profile(kPooled, "pooled.json");
  DispatchSamples d = ort::dispatch_samples(p, 1, 1);
  ASSERT_EQ(d.executor_ms.size(), 1u);
  EXPECT_DOUBLE_EQ(d.executor_ms[0], 0.4);
  ASSERT_EQ(d.fences_ms.size(), 1u);
  EXPECT_DOUBLE_EQ(d.fences_ms[0], 0.03);
  ASSERT_EQ(d.pool_handoff_ms.size(), 1u);
  EXPECT_DOUBLE_EQ(d.pool_handoff_ms[0], 0.03);   // Distribution + DistributionEnqueue, µs -> ms
  EXPECT_DOUBLE_EQ(d.pool_wait_ms[0], 0.045);     // Wait + WaitRevoke
  EXPECT_EQ(d.parallel_kernels.value_or(-1), 1);  // one kernel ran a parallel section
  // a ends at 2110, b starts at 2150; b's fence follows it 10 us after its end: the longest gap is 40 us.
  ASSERT_EQ(d.longest_gap_ms.size(), 1u);
  EXPECT_DOUBLE_EQ(d.longest_gap_ms[0], 0.04);
  // The breakdown: run 0.45, executor 0.4, kernels 0.1 + 0.2 (the fence is not a kernel).
  DispatchBreakdown b = dispatch_breakdown({{0.1}, {0.2}}, {0.45}, d, 2);
  EXPECT_NEAR(b.outside_executor_ms.value_or(-1), 0.05, 1e-9);
  EXPECT_NEAR(b.executor_gaps_ms.value_or(-1), 0.1, 1e-9);
  EXPECT_NEAR(b.fences_ms.value_or(-1), 0.03, 1e-9);
  EXPECT_NEAR(b.longest_gap_ms.value_or(-1), 0.04, 1e-9);
  EXPECT_EQ(b.kernels, 2);
  EXPECT_FALSE(b.profiler_bookkeeping_ms || b.coverage_without_profiler || b.profiler_gap_ms);  // not calibrated
  // A profile without those events gives none of them.
  DispatchSamples none = ort::dispatch_samples(ort::parse_ort_profile(kOld, "old.json"), 0, 1);
  EXPECT_TRUE(none.executor_ms.empty() && none.fences_ms.empty() && none.pool_wait_ms.empty());
  EXPECT_EQ(none.longest_gap_ms, std::vector<double>{0.0});  // one kernel: nothing between kernels
}

// The profiler's calibrated gap per kernel sets aside at most kernels x gap of the executor's time between kernels,
// and never more than that time: per iteration, then the median.
TEST(OrtDispatch, TheProfilersBookkeepingIsBoundedByTheCalibrationAndByTheGaps) {
  DispatchSamples s;
  s.executor_ms = {0.40, 0.50, 0.32};  // kernels sum to 0.30 each run: gaps 0.10, 0.20, 0.02
  s.profiler_gap_ms = 0.025;           // 2 kernels: at most 0.05 a run
  const std::vector<double> runs = {0.45, 0.55, 0.37};
  DispatchBreakdown b = dispatch_breakdown({{0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}}, runs, s, 2);
  EXPECT_NEAR(b.profiler_gap_ms.value_or(-1), 0.025, 1e-12);
  EXPECT_NEAR(b.profiler_bookkeeping_ms.value_or(-1), 0.05, 1e-12);  // per run 0.05, 0.05, 0.02
  // Coverage per run: 0.3/0.40, 0.3/0.50, 0.3/0.35 -> median 0.75 (against 0.3/0.45 = 0.667 plain).
  EXPECT_NEAR(b.coverage_without_profiler.value_or(-1), 0.75, 1e-12);
  IterationCoverage plain = iteration_coverage({{0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}}, runs);
  EXPECT_LT(plain.coverage, *b.coverage_without_profiler);
  // Without an executor span the whole time between kernels bounds it.
  s.executor_ms.clear();
  b = dispatch_breakdown({{0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}}, runs, s, 2);
  EXPECT_NEAR(b.profiler_bookkeeping_ms.value_or(-1), 0.05, 1e-12);
  // A calibration larger than the gaps takes the gaps only: coverage 1, never more.
  s.profiler_gap_ms = 1.0;
  b = dispatch_breakdown({{0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}}, runs, s, 2);
  EXPECT_NEAR(b.coverage_without_profiler.value_or(-1), 1.0, 1e-12);
}

// An If whose subgraph's kernels run inside its own span: the stretches between those inner kernels are the If's
// time, not gaps; the longest gap is from the If's end to the next kernel.
TEST(OrtDispatch, TheLongestGapIsMeasuredFromTheFurthestEndReached) {
  const char* nested = R"([
{"cat":"Node","pid":7,"tid":7,"dur":300,"ts":100,"ph":"X","name":"if_kernel_time","args":{"op_name":"If"}},
{"cat":"Node","pid":7,"tid":7,"dur":50,"ts":150,"ph":"X","name":"then_a_kernel_time","args":{"op_name":"Add"}},
{"cat":"Node","pid":7,"tid":7,"dur":50,"ts":280,"ph":"X","name":"then_b_kernel_time","args":{"op_name":"Mul"}},
{"cat":"Node","pid":7,"tid":7,"dur":20,"ts":425,"ph":"X","name":"c_kernel_time","args":{"op_name":"Relu"}},
{"cat":"Session","pid":7,"tid":7,"dur":400,"ts":90,"ph":"X","name":"model_run","args":{}}
])";
  DispatchSamples d = ort::dispatch_samples(ort::parse_ort_profile(nested, "nested.json"), 0, 1);
  ASSERT_EQ(d.longest_gap_ms.size(), 1u);
  EXPECT_DOUBLE_EQ(d.longest_gap_ms[0], 0.025);  // 400 -> 425; not 200 -> 280 inside the If
}

TEST(OwnMemory, ReadsTheHighWaterMarkOfProcStatus) {
  EXPECT_EQ(vm_hwm_bytes("Name:\tnode\nVmPeak:\t  999 kB\nVmHWM:\t   40440 kB\nVmRSS:\t 1 kB\n"), 40440u * 1024);
  EXPECT_EQ(vm_hwm_bytes("Name:\tnode\n"), 0u);
  EXPECT_GT(own_peak_rss_bytes(), 0u);  // this test process has one
}

namespace {

Report run_report() {
  Report r;
  r.tool.command = "profile";
  BackendInfo b;
  b.name = b.label = "onnxruntime";
  r.backends.push_back(b);
  ProfileRun run;
  run.batch = 1;
  run.threads = 2;
  run.latencies_ms = {1.0};
  run.settings = {{"intra_op_threads", "2", SettingSource::rooflens, "intraOpNumThreads", "one per core"},
                  {"spinning", "on", SettingSource::runtime_default, "session.intra_op.allow_spinning", "documented"}};
  run.threads_observed = ThreadsObserved{2, 1};
  DispatchBreakdown d;
  d.kernels = 12;
  d.outside_executor_ms = 0.25;
  d.executor_gaps_ms = 0.5;
  d.profiler_ms = 0.125;
  d.longest_gap_ms = 0.03125;
  d.parallel_kernels = 3;
  d.pool_wait_ms = 0.0625;
  run.dispatch = d;
  run.between_kernels_ms = 0.75;
  run.profiled_run_ms = 3.0;
  r.runs.push_back(run);
  return r;
}

}  // namespace

TEST(RunSettingsJson, RoundTripsAndIsReadStrictly) {
  const std::string text = report_to_json(run_report());
  const Report back = report_from_json(text);
  EXPECT_EQ(report_to_json(back), text);
  ASSERT_EQ(back.runs[0].settings.size(), 2u);
  EXPECT_EQ(back.runs[0].settings[0].source, SettingSource::rooflens);
  EXPECT_EQ(back.runs[0].threads_observed->working.value_or(-1), 1);
  EXPECT_FALSE(back.runs[0].dispatch->fences_ms);  // absent stays absent
  EXPECT_DOUBLE_EQ(back.runs[0].dispatch->executor_gaps_ms.value_or(-1), 0.5);
  // A run without them writes none of the keys (older reports stay as they were).
  Report plain = run_report();
  plain.runs[0].settings.clear();
  plain.runs[0].threads_observed.reset();
  plain.runs[0].dispatch.reset();
  const std::string plain_text = report_to_json(plain);
  for (const char* key : {"\"settings\"", "\"threads_observed\"", "\"dispatch\""})
    EXPECT_EQ(plain_text.find(key), std::string::npos) << key;
  // A source outside the closed set, a missing field, a pool smaller than its workers: refused.
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_THROW(report_from_json(with("\"source\": \"rooflens\"", "\"source\": \"guessed\"")), UserError);
  EXPECT_THROW(report_from_json(with("\"option\": \"intraOpNumThreads\",", "")), std::exception);
  EXPECT_THROW(report_from_json(with("\"working\": 1", "\"working\": 5")), UserError);
  // The profiler's calibration and what it sets aside round-trip; negative ones are refused by name.
  Report cal = run_report();
  cal.runs[0].dispatch->profiler_gap_ms = 0.002;
  cal.runs[0].dispatch->profiler_bookkeeping_ms = 0.024;
  cal.runs[0].dispatch->coverage_without_profiler = 0.96;
  const std::string cal_text = report_to_json(cal);
  EXPECT_EQ(report_to_json(report_from_json(cal_text)), cal_text);
  std::string bad = cal_text;
  bad.replace(bad.find("\"profiler_gap_ms\": 0.002"), 24, "\"profiler_gap_ms\": -0.002");
  try {
    report_from_json(bad);
    ADD_FAILURE() << "a negative profiler_gap_ms was read";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("dispatch.profiler_gap_ms"), std::string::npos) << e.what();
  }
}

TEST(RunSettingsViews, TheTerminalShowsSourcesTheObservedPoolAndTheBreakdown) {
  const Report r = run_report();
  const std::string lines = settings_lines(r);
  EXPECT_NE(lines.find("intra_op_threads 2 [rooflens] (profile: pool 2, 1 working)"), std::string::npos) << lines;
  EXPECT_NE(lines.find("; runtime defaults: spinning on"), std::string::npos) << lines;
  const std::string d = dispatch_line(r.runs[0]);
  EXPECT_NE(d.find("outside the executor 0.250 + in the executor between kernels 0.500 ms"), std::string::npos) << d;
  EXPECT_NE(d.find("profiling itself adds 0.125 ms"), std::string::npos) << d;
  EXPECT_NE(d.find("the longest single gap 0.031 ms"), std::string::npos) << d;
  EXPECT_NE(d.find("waited for its workers 0.062 ms"), std::string::npos) << d;
  EXPECT_EQ(d.find("bookkeeping"), std::string::npos) << d;  // not calibrated: not said
  Report cal = run_report();
  cal.runs[0].dispatch->profiler_gap_ms = 0.002;
  cal.runs[0].dispatch->profiler_bookkeeping_ms = 0.024;
  cal.runs[0].dispatch->coverage_without_profiler = 0.96;
  const std::string c = dispatch_line(cal.runs[0]);
  EXPECT_NE(c.find("at least 0.024 ms is the profiler's own bookkeeping (2.0 us a kernel or more"), std::string::npos)
      << c;
  EXPECT_NE(c.find("without it the kernels cover 96.0% of the run"), std::string::npos) << c;
}

TEST(RunSettingsAssembly, ALabelThePoolDoesNotMatchIsAWarningNamingBoth) {
  Measurement m;
  m.latencies_ms = {1.0, 1.0};
  m.threads = 2;
  m.threads_observed = ThreadsObserved{4, 4};
  RunKey key;
  key.batch = 1;
  key.threads = 2;
  ProfileRun run = assemble_run(key, m, {});
  bool said = false;
  for (const auto& w : run.warnings)
    said = said || (w.find("labelled threads=2") != std::string::npos && w.find("pool of 4") != std::string::npos);
  EXPECT_TRUE(said);
  m.threads_observed = ThreadsObserved{2, 1};  // the pool is the label; one worker idle is no mismatch
  for (const auto& w : assemble_run(key, m, {}).warnings) EXPECT_EQ(w.find("labelled threads"), std::string::npos) << w;
}

TEST(RunSettingsAssembly, ALaterRepetitionWithOtherSettingsIsSaidOnce) {
  Measurement m;
  m.latencies_ms = {1.0};
  m.settings = {{"spinning", "on", SettingSource::runtime_default, "session.intra_op.allow_spinning", ""}};
  RunKey key;
  key.threads = 2;
  ProfileRun run = assemble_run(key, m, {});
  Measurement live = m;  // the turns of compare: a live runner with spinning off
  live.settings[0] = {"spinning", "off", SettingSource::rooflens, "session.intra_op.allow_spinning", "turns"};
  add_repetition(run, live);
  add_repetition(run, live);
  add_repetition(run, m);  // the same as the first: nothing to say
  int said = 0;
  for (const auto& w : run.warnings)
    if (w == "repetitions from 2 on ran with spinning off [rooflens], the first with on") ++said;
  EXPECT_EQ(said, 1);
  EXPECT_EQ(run.warnings.size(), 1u);
}

// A later repetition's own warning (its runner could not enter real time) is kept, once, naming the repetition it
// came from; one the first repetition already gave (the same oversubscription) is not said again.
TEST(RunSettingsAssembly, ALaterRepetitionsOwnWarningIsKeptOnce) {
  Measurement m;
  m.latencies_ms = {1.0};
  m.warnings = {"4 intra-op threads share 2 CPU(s)"};
  RunKey key;
  key.threads = 4;
  ProfileRun run = assemble_run(key, m, {});
  Measurement later = m;
  later.warnings.push_back("--realtime: the runner's worker threads had not moved to their CPUs");
  add_repetition(run, m);
  add_repetition(run, later);
  add_repetition(run, later);
  const auto count = [&](const std::string& w) { return std::count(run.warnings.begin(), run.warnings.end(), w); };
  EXPECT_EQ(count("4 intra-op threads share 2 CPU(s)"), 1);
  EXPECT_EQ(count("repetition 3: --realtime: the runner's worker threads had not moved to their CPUs"), 1);
  EXPECT_EQ(run.warnings.size(), 2u);
}

// The runner's page faults: one count per repetition beside its iterations, their mean per run, written and read back,
// and printed per repetition when a run took one a run or more; a repetition without a count drops the figure.
TEST(RunSettingsAssembly, PageFaultsAreKeptPerRepetitionAndPrinted) {
  Measurement m;
  m.latencies_ms = {1.0, 1.0, 1.0, 1.0};
  m.page_faults = 64;
  RunKey key;
  key.batch = 1;
  key.threads = 2;
  ProfileRun run = assemble_run(key, m, {});
  Measurement quiet = m;
  quiet.latencies_ms = {1.0, 1.0};
  quiet.page_faults = 0;
  add_repetition(run, quiet);
  EXPECT_EQ(run.repetition_page_faults, (std::vector<int64_t>{64, 0}));
  ASSERT_TRUE(run.page_faults_per_run);
  EXPECT_NEAR(*run.page_faults_per_run, 64.0 / 6, 1e-12);
  Report r;
  r.tool.command = "profile";
  r.backends = {BackendInfo{"onnxruntime", "1.30.0", {}, "onnxruntime-node 1.30.0", "onnxruntime", ""}};
  r.runs = {run};
  const std::string text = page_fault_lines(r);
  EXPECT_NE(text.find("batch=1 threads=2: 10.7 (by run: 16.0, 0.0)"), std::string::npos) << text;
  const Report back = report_from_json(report_to_json(r));
  ASSERT_EQ(back.runs.size(), 1u);
  EXPECT_EQ(back.runs[0].repetition_page_faults, run.repetition_page_faults);
  EXPECT_EQ(back.runs[0].page_faults_per_run, run.page_faults_per_run);
  Report bad = r;
  bad.runs[0].repetition_page_faults.pop_back();
  EXPECT_THROW(report_from_json(report_to_json(bad)), UserError);
  Measurement uncounted = quiet;
  uncounted.page_faults.reset();
  add_repetition(run, uncounted);
  EXPECT_TRUE(run.repetition_page_faults.empty());
  EXPECT_FALSE(run.page_faults_per_run);
  r.runs = {run};
  EXPECT_EQ(page_fault_lines(r), "");
}
