#include "cli/capacity_self_test.h"

#include <iostream>

#include "backends/registry/registry.h"
#include "capacity/loadgen/null_sut.h"
#include "capacity/loadgen/verdict.h"
#include "capacity/run.h"
#include "capacity/sut/pool.h"
#include "cli/interrupt.h"
#include "core/atomic_file.h"
#include "core/build_info.h"
#include "core/temp_dir.h"
#include "reporters/capacity_summary.h"
#include "zoo/identity.h"

namespace rooflens::cli {
namespace {

constexpr double kSeconds = 3;

double engine_alone(const capacity::Resolved& s) {
  capacity::NullSystem null;
  capacity::RunPlan p;
  p.scenario = Scenario::offline;
  p.min_duration_s = 1;
  p.min_queries = 1;
  p.offline_window = 64;
  p.seed = s.seed;
  const capacity::RunRecords r = capacity::run_scenario(p, null);
  return capacity::judge(p, r, {}).completed_qps;
}

}  // namespace

int run_self_test(CapacityCommand& a) {
  TempDir work("rooflens-selftest");
  const auto model = work.path() / "identity.onnx";
  zoo::save_identity_model(model);
  std::unique_ptr<Backend> backend = make_backend(parse_backend_spec(a.backend));
  if (!backend->serving()) throw UsageError("-B " + a.backend + " cannot serve queries to a capacity run");
  const int64_t cores = capacity::usable_cores();
  const capacity::ServedModel w = capacity::load_served_model(model.string(), {}, {}, a.s.seed);

  capacity::Requested asked = a.s;
  asked.scenario = Scenario::offline;
  asked.predict = false;
  asked.offline_request_ms = 0;  // every query its own request: the generator's per-query path, as a server run has it
  if (!asked.min_duration_s) asked.min_duration_s = kSeconds;
  capacity::LeverLists levers = a.levers;
  if (levers.instances == std::vector<int64_t>{1}) levers.instances = {cores};
  if (levers.threads == std::vector<int64_t>{0}) levers.threads = {1};
  if (levers.concurrency.empty()) levers.concurrency = {4};
  const capacity::Resolved s = capacity::resolve(asked, levers, cores);
  const std::vector<CapacityConfig> configs = capacity::expand(s.levers, cores);

  InterruptWatcher watcher("rooflens capacity: interrupted", [] {});
  capacity::DriverContext ctx;
  ctx.settings = &s;
  ctx.served = &w;
  ctx.backend = backend.get();
  ctx.cores = cores;
  ctx.work_dir = work.path();
  ctx.interrupted = &watcher.flag();
  if (!a.quiet) ctx.progress = [](const std::string& what) { std::cerr << "rooflens capacity --self-test: " << what << "\n"; };
  SelfTest t;
  t.engine_qps = engine_alone(s);
  capacity::CapacityOutcome offline = capacity::run_capacity(configs, ctx);
  CapacityResult result = std::move(offline.result);
  const CapacityRun& first = result.runs.front();
  if (!first.failure.empty() || first.points.empty()) throw UserError("--self-test: " + first.failure);
  t.max_qps = first.points.back().completed_qps;

  capacity::Requested at_half = asked;
  at_half.scenario = Scenario::server;
  at_half.qps = t.lag_at_qps = t.max_qps / 2;
  at_half.slo_ms = 1000;  // not judged: the self-test reports the lag and latency it measures
  at_half.min_queries.reset();
  const capacity::Resolved server = capacity::resolve(at_half, levers, cores);
  ctx.settings = &server;
  capacity::CapacityOutcome lag = capacity::run_capacity(configs, ctx);
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
  rep.backends = {backend->info()};
  rep.capacity = std::move(result);
  if (a.json) std::cout << report_to_json(rep);
  else std::cout << capacity_summary(*rep.capacity, "self-test (one Identity)", rep.backends.front().runtime);
  if (!a.out_json.empty()) write_file_atomically(a.out_json, report_to_json(rep));
  return rep.capacity->partial ? 1 : 0;
}

}  // namespace rooflens::cli
