// `rooflens capacity MODEL`: how much this machine serves a model, at what latency, with which configuration, and
// why — MLPerf's scenarios on a pool of runner instances (src/capacity/), the verdict first, then the tables.
#include <filesystem>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "backends/registry/registry.h"
#include "backends/serving.h"
#include "capacity/loadgen/records.h"
#include "capacity/run.h"
#include "capacity/self_test.h"
#include "capacity/sut/pool.h"
#include "cli/capacity_decoder.h"
#include "cli/capacity_flags.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/roofs.h"
#include "core/atomic_file.h"
#include "core/build_info.h"
#include "core/errors.h"
#include "core/temp_dir.h"
#include "reporters/capacity_summary.h"
#include "reporters/html_report.h"

namespace rooflens::cli {
namespace {

// What the model's batch allows: no stacking of samples without a dynamic batch dim, no dynamic batching on a
// runtime that fixes the batch when it loads.
void check_batching(const CapacityCommand& a, const capacity::Resolved& s, const capacity::ServedModel& w,
                    const Serving& serving) {
  const int64_t max_b = *std::max_element(s.levers.max_batch.begin(), s.levers.max_batch.end());
  const int64_t max_q = s.scenario == Scenario::multi_stream
                            ? s.samples_per_query
                            : *std::max_element(s.levers.batch.begin(), s.levers.batch.end());
  if (w.batch_dim.empty() && (max_b > 1 || max_q > 1)) {
    const std::string flag = max_b > 1 ? "--max-batch" : s.scenario == Scenario::multi_stream ? "--samples-per-query" : "-b";
    throw UsageError(flag + ": " + a.model + " has a fixed batch of " + std::to_string(w.fixed_batch) +
                     " (no symbolic leading dim): it cannot run several samples in one call; export it with a "
                     "dynamic batch");
  }
  if (max_b > 1 && !serving.takes_any_batch())
    throw UsageError("--max-batch: -B " + a.backend + " fixes the batch when it loads a model, so queries cannot be "
                     "merged into batches of varying size; use -B onnxruntime");
  if (s.profile_layers && !serving.can_profile())
    throw UsageError("--profile-layers: -B " + a.backend + " cannot profile its layers under load; use -B onnxruntime");
  if (s.profile_layers && max_b > 1)
    throw UsageError("--profile-layers with --max-batch: calls of varying batch would mix in one layer profile; "
                     "profile without dynamic batching");
}

std::string capacity_settings_json(const capacity::Resolved& s) {
  nlohmann::ordered_json j{{"scenario", to_string(s.scenario)}, {"qps", s.qps},       {"slo_ms", s.slo_ms},
                           {"percentile", s.percentile},         {"duration_s", s.min_duration_s},
                           {"min_queries", s.min_queries},       {"seed", s.seed},    {"find_peak", s.find_peak},
                           {"search", s.search}};
  return j.dump();
}

Report make_report(const CapacityCommand& a, const capacity::ServedModel& w, Backend& backend,
                   const std::optional<HardwareInfo>& roofs, capacity::CapacityOutcome& o) {
  Report rep;
  rep.tool = tool_info("capacity");
  rep.model = w.info;
  rep.model.path = a.model;
  if (roofs) rep.hardware = *roofs;
  rep.backends = {backend.info()};
  rep.runs = std::move(o.layer_runs);
  rep.partial = o.result.partial;
  rep.capacity = std::move(o.result);
  return rep;
}

// --self-test: the generator's own cost (capacity/self_test.h), printed and written like a capacity run.
int run_self_test(const CapacityCommand& a) {
  std::unique_ptr<Backend> backend = make_backend(parse_backend_spec(a.backend));
  if (!backend->serving()) throw UsageError(cannot_serve(a.backend));
  InterruptWatcher watcher("rooflens capacity: interrupted", [] {});
  std::function<void(const std::string&)> progress;
  if (!a.quiet) progress = [](const std::string& what) { std::cerr << "rooflens capacity --self-test: " << what << "\n"; };
  const Report rep = capacity::run_self_test(a.s, a.levers, *backend, &watcher.flag(), progress);
  if (a.json) std::cout << report_to_json(rep);
  else std::cout << capacity_summary(*rep.capacity, "self-test (one Identity)", rep.backends.front().runtime);
  if (!a.out_json.empty()) write_file_atomically(a.out_json, report_to_json(rep));
  return rep.capacity->partial ? 1 : 0;
}

int exit_code(const CapacityResult& c) {
  if (c.partial || c.runs.empty()) return 1;
  for (const auto& r : c.runs) {
    if (!r.failure.empty() && !c.settings.search) return 1;
    if (c.settings.search) continue;
    if (r.peak) return r.peak->qps > 0 ? 0 : 1;
    if (r.points.empty() || !r.points.back().valid) return 1;
  }
  if (c.settings.search && c.best_offline.empty() && c.best_server.empty()) return 1;
  return 0;
}

int run_capacity_command(CapacityCommand& a, const CLI::App& cmd) {
  if (!a.model.empty() && !a.s.self_test) {  // a decoder with a KV cache is served to users, request by request
    std::string why;
    if (const std::optional<DecoderIo> io = served_decoder_io(a.model, why)) return run_decoder_capacity(a, cmd, *io);
    reject_decoder_flags(a, cmd, why);
  }
  parse_capacity_flags(a, cmd);
  if (a.s.self_test) return run_self_test(a);
  if (a.model.empty()) throw UsageError("capacity: give a MODEL (or --self-test)");
  a.db.validate();
  const int64_t cores = capacity::usable_cores();
  const capacity::Resolved s = capacity::resolve(a.s, a.levers, cores);
  std::unique_ptr<Backend> backend = make_backend(parse_backend_spec(a.backend));
  Serving* serving = backend->serving();
  if (!serving) throw UsageError(cannot_serve(a.backend));
  std::map<std::string, std::string> files;
  for (const auto& in : a.inputs) {
    auto eq = in.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--input expects NAME=FILE (.pb or .npy), got '" + in + "'");
    files[in.substr(0, eq)] = in.substr(eq + 1);
  }
  const capacity::ServedModel w = capacity::load_served_model(a.model, a.shape.overrides(), files, a.s.seed);
  check_batching(a, s, w, *serving);
  std::optional<HardwareInfo> roofs = hw::obtain_roofs(roof_source(a.no_roofs, a.roofs, a.quiet, "capacity"));
  std::optional<capacity::CsvRecordSink> sink;
  if (!a.queries_csv.empty()) sink.emplace(a.queries_csv);
  TempDir work("rooflens-capacity");

  InterruptWatcher watcher("rooflens capacity: interrupted — stopping and writing the partial result", [] {});
  capacity::CapacityContext ctx;
  ctx.settings = &s;
  ctx.served = &w;
  ctx.backend = backend.get();
  ctx.roofs = roofs ? &*roofs : nullptr;
  ctx.cores = cores;
  ctx.work_dir = work.path();
  ctx.sink = sink ? &*sink : nullptr;
  ctx.on_config = [&sink](const std::string& label) {
    if (sink) sink->set_config(label);
  };
  ctx.interrupted = &watcher.flag();
  if (!a.quiet) ctx.progress = [](const std::string& what) { std::cerr << "rooflens capacity: " << what << "\n"; };
  capacity::CapacityOutcome outcome = capacity::run_capacity(capacity::expand(s.levers, cores), ctx);
  Report rep = make_report(a, w, *backend, roofs, outcome);
  const CapacityResult& c = *rep.capacity;

  if (a.json) std::cout << report_to_json(rep);
  else std::cout << capacity_summary(c, a.model, rep.backends.front().runtime);
  if (!a.out_json.empty()) write_file_atomically(a.out_json, report_to_json(rep));
  if (!a.html.empty()) write_file_atomically(a.html, html_report(rep));
  if (!a.quiet) {
    if (!a.out_json.empty()) std::cerr << "rooflens capacity: report written to " << a.out_json << "\n";
    if (!a.html.empty()) std::cerr << "rooflens capacity: HTML report written to " << a.html << "\n";
    if (sink) std::cerr << "rooflens capacity: query records written to " << a.queries_csv << "\n";
  }
  const int rc = exit_code(c);
  if (c.partial) return rc;  // an interrupted run is not history
  return worst_exit(rc, store_report(a.db, rep, "capacity", a.quiet, capacity_settings_json(s)));
}

}  // namespace

void setup_capacity(CLI::App& root, Action& action) {
  auto a = std::make_shared<CapacityCommand>();
  CLI::App* cmd = root.add_subcommand("capacity", "How much this machine serves a model: MLPerf scenarios on a pool "
                                                  "of runner instances, VALID/INVALID verdicts, the peak QPS at a "
                                                  "latency bound, the best configuration, and why");
  cmd->footer(
      "Examples:\n"
      "  rooflens capacity resnet50.onnx --scenario server --qps 20 --slo 100ms\n"
      "  rooflens capacity resnet50.onnx --find-peak --slo 100ms -o peak.json --html peak.html\n"
      "  rooflens capacity resnet50.onnx --scenario offline --instances 2 --threads 1\n"
      "  rooflens capacity resnet50.onnx --search --instances 1,2 --threads 1,2 --concurrency 1,2 --slo 100ms\n"
      "  rooflens capacity mobilenet_v2.onnx --find-peak --slo 50ms --max-batch 8 --batch-timeout 2ms\n"
      "  rooflens capacity resnet50.onnx --scenario single-stream --queries records.csv\n"
      "  rooflens capacity --self-test          (the generator's own throughput and added latency)\n"
      "  rooflens capacity llama-kv.onnx --scenario server --qps 4 --slo ttft=2s,tpot=100ms --max-batch 8\n"
      "  rooflens capacity llama-kv.onnx --scenario concurrency --users 4 --slo llama3.1-8b --batching static\n"
      "                                         (a decoder with a KV cache: requests, TTFT/TPOT, goodput)\n"
      "  rooflens capacity m.onnx --search --instances 1,2 --threads 1,2 --slurm 4 --db postgresql://ci@db/perf\n"
      "                                         (one Slurm array task per configuration: docs/fleet.md)\n"
      "Latency counts from each query's scheduled time (Poisson, seeded: --seed), so a system or generator that\n"
      "falls behind cannot hide it. Runs last at least --duration (10 s) and --min-queries; MLPerf's 600 s are\n"
      "--mlperf-durations. Exit 0: VALID (find-peak: a VALID QPS found); 1: INVALID, a failure or Ctrl-C; 2: usage;\n"
      "3: results written but not stored in the database. Details: docs/capacity.md.");
  add_capacity_flags(*cmd, *a);
  cmd->callback([a, cmd, &action] {
    action = [a, cmd] {
      if (!a->fleet.active()) return run_capacity_command(*a, *cmd);
      parse_capacity_flags(*a, *cmd);
      return run_fleet(a->fleet, *cmd, a->db, capacity_fleet_shape(*a, *cmd));
    };
  });
}

}  // namespace rooflens::cli
