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

double engine_alone(const Settings& s) {
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

Report run_self_test(const Settings& settings, const LeverLists& flag_levers, Backend& backend,
                     const std::atomic<bool>* interrupted, const std::function<void(const std::string&)>& progress) {
  TempDir work("rooflens-selftest");
  const auto model = work.path() / "identity.onnx";
  zoo::save_identity_model(model);
  const int64_t cores = usable_cores();
  const ServedModel w = load_served_model(model.string(), {}, {}, settings.seed);

  Settings s = settings;
  s.scenario = Scenario::offline;
  s.predict = false;
  s.offline_request_ms = 0;  // every query its own request: the generator's per-query path, as a server run has it
  s.min_duration_s = settings.min_duration_s > 0 ? settings.min_duration_s : kSeconds;
  LeverLists levers = flag_levers;
  if (levers.instances == std::vector<int64_t>{1}) levers.instances = {cores};
  if (levers.threads == std::vector<int64_t>{0}) levers.threads = {1};
  if (levers.concurrency.empty()) levers.concurrency = {4};
  resolve(s, levers, cores);
  const std::vector<CapacityConfig> configs = expand(levers, cores);

  DriverContext ctx;
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

  Settings server = s;
  server.scenario = Scenario::server;
  server.qps = t.lag_at_qps = t.max_qps / 2;
  server.slo_ms = 1000;  // not judged: the self-test reports the lag and latency it measures
  server.min_queries = 0;
  LeverLists same = levers;
  resolve(server, same, cores);
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
