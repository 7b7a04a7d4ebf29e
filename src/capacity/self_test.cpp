#include "capacity/self_test.h"

#include "capacity/loadgen/null_sut.h"
#include "capacity/loadgen/verdict.h"
#include "capacity/run.h"
#include "capacity/sut/pool.h"
#include "core/build_info.h"
#include "core/errors.h"
#include "core/temp_dir.h"
#include "zoo/identity.h"

namespace rooflens::capacity {
namespace {

constexpr double kSeconds = 3;

double engine_alone(const Resolved& s) {
  NullSystem null;
  RunPlan p;
  p.scenario = Scenario::offline;
  p.min_duration_s = 1;
  p.min_queries = 1;
  p.offline_window = 64;
  p.seed = s.seed;
  const RunRecords r = run_scenario(p, null);
  return judge(p, r, {}).completed_qps;
}

}  // namespace

Report run_self_test(const Requested& settings, const LeverLists& flag_levers, Backend& backend,
                     const std::atomic<bool>* interrupted, const std::function<void(const std::string&)>& progress) {
  TempDir work("rooflens-selftest");
  const auto model = work.path() / "identity.onnx";
  zoo::save_identity_model(model);
  const int64_t cores = usable_cores();
  const ServedModel w = load_served_model(model.string(), {}, {}, settings.seed);

  Requested asked = settings;
  asked.scenario = Scenario::offline;
  asked.predict = false;
  asked.offline_message_ms = 0;  // every query its own message: the generator's per-query path, as a server run has it
  if (!asked.min_duration_s) asked.min_duration_s = kSeconds;
  LeverLists levers = flag_levers;
  if (levers.instances == std::vector<int64_t>{1}) levers.instances = {cores};
  if (levers.threads == std::vector<int64_t>{0}) levers.threads = {1};
  if (levers.concurrency.empty()) levers.concurrency = {4};
  const Resolved s = resolve(asked, levers, cores);
  const std::vector<CapacityConfig> configs = expand(s.levers, cores);

  CapacityContext ctx;
  ctx.settings = &s;
  ctx.served = &w;
  ctx.backend = &backend;
  ctx.cores = cores;
  ctx.work_dir = work.path();
  ctx.interrupted = interrupted;
  ctx.progress = progress;
  SelfTest t;
  t.engine_qps = engine_alone(s);
  CapacityOutcome offline = run_capacity(configs, ctx);
  CapacityResult result = std::move(offline.result);
  const CapacityRun& first = result.runs.front();
  if (!first.failure.empty() || first.points.empty()) throw UserError("--self-test: " + first.failure);
  t.max_qps = first.points.back().completed_qps;

  Requested at_half = asked;
  at_half.scenario = Scenario::server;
  at_half.qps = t.lag_at_qps = t.max_qps / 2;
  at_half.slo_ms = 1000;  // not judged: the self-test reports the lag and latency it measures
  at_half.min_queries.reset();
  const Resolved server = resolve(at_half, levers, cores);
  ctx.settings = &server;
  CapacityOutcome lag = run_capacity(configs, ctx);
  const CapacityRun& second = lag.result.runs.front();
  if (!second.failure.empty() || second.points.empty()) throw UserError("--self-test: " + second.failure);
  const ScenarioResult& p = second.points.back();
  t.issue_lag_p99_ms = p.issue_lag.p99_ms;
  t.latency_p50_ms = p.latency_ms.p50;
  t.latency_p99_ms = p.latency_ms.p99;
  result.runs.front().points.push_back(p);
  result.self_test = t;
  result.partial = result.partial || lag.result.partial;

  Report rep;
  rep.tool = tool_info("capacity");
  rep.model = w.info;
  rep.backends = {backend.info()};
  rep.capacity = std::move(result);
  return rep;
}

}  // namespace rooflens::capacity
