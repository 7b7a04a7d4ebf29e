#include "capacity/sut/under_load.h"

#include <set>

#include <fmt/format.h>

#include "assembly/assemble.h"
#include "model/graph.h"
#include "model/onnx_graph_view.h"

namespace rooflens::capacity {
namespace {

// The instance's runtime calls in the run, each once (a merged batch is one call), in ms.
std::vector<double> service_ms(const RunRecords& r, int32_t instance) {
  std::set<int64_t> seen;
  std::vector<double> out;
  for (const auto& q : r.queries)
    if (q.done.instance == instance && q.done.status == QueryStatus::ok && seen.insert(q.done.start_ns).second)
      out.push_back(static_cast<double>(q.done.end_ns - q.done.start_ns) / 1e6);
  return out;
}

}  // namespace

std::vector<ProfileRun> profile_under_load(Backend& backend, UnderLoad u, const EngineHooks& hooks) {
  u.pool.serving.profile = true;
  RunnerPool pool(*backend.serving(), u.pool);
  RunPlan warm = u.plan;
  warm.scenario = Scenario::offline;
  warm.min_queries = 3 * u.pool.instances;
  warm.min_duration_s = 0;
  (void)run_scenario(warm, pool, {});
  std::vector<int64_t> skip;
  for (int32_t i = 0; i < pool.size(); ++i) skip.push_back(pool.calls(i));
  const RunRecords records = run_scenario(u.plan, pool, hooks);
  if (!records.fault.empty()) throw BackendError("profile", "died", records.fault, "");

  const GraphView view = graph_view(*u.served->loaded);
  AssemblyContext ctx;
  ctx.model = &view;
  ctx.analysis = &u.served->info.analysis;
  ctx.hw = u.roofs;
  ctx.rules = &backend.mapping_rules();
  std::vector<ProfileRun> out;
  for (int32_t i = 0; i < pool.size(); ++i) {
    Measurement m = pool.instance(i).profile(skip[static_cast<size_t>(i)]);
    m.latencies_ms = service_ms(records, i);
    m.threads = u.threads;
    m.settings = pool.instance(i).settings();
    m.load_ms = pool.instance(i).load_ms();
    RunKey key;
    key.batch = u.plan.samples_per_query;
    key.dims = u.served->loaded->input_symbols;
    key.dims["instance"] = i;
    key.threads = u.threads;
    ProfileRun run = assemble_run(key, m, ctx);
    run.warnings.insert(run.warnings.begin(),
                        fmt::format("under load: instance {} of {} serving {:g} QPS (Poisson), its inference session "
                                    "profiling (latencies are its runtime calls, profiler on)",
                                    i, pool.size(), u.plan.qps));
    out.push_back(std::move(run));
  }
  return out;
}

}  // namespace rooflens::capacity
